import { dirname } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { bundleWorker, closedPort } from "../../node/consumer-auth-bundle.ts";

const compat = { compatibilityDate: "2026-11-01", compatibilityFlags: ["nodejs_compat"] };

/** What the real auth worker needs (test values; the identity provider is never called). */
const authVars = {
  AUTH_REDIRECT_URL: "https://auth.example.com/auth/callback",
  IDENTITY_API_KEY: "sk_test_unused",
  IDENTITY_CLIENT_ID: "client_unused",
};

/**
 * The consumer-side security suite (issue 14): the example consumer (wrangler.toml beside this
 * file) in front of the real auth worker, as in test/consumer: "gatehouse-auth" is the bundled
 * auth fixture (test/consumer/auth-fixture) with its KV and USER_SESSIONS, "gatehouse-auth-misconfigured"
 * the same bundle without SESSION_SECRET, and AUTH_DOWN a closed loopback port.
 */
export default defineProject({
  plugins: [
    cloudflareTest(async () => {
      const authScript = await bundleWorker("test/consumer/auth-fixture/wrangler.toml");
      const downPort = await closedPort();
      return {
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          serviceBindings: { AUTH_DOWN: { external: { address: `127.0.0.1:${downPort}`, http: {} } } },
          workers: [
            {
              name: "gatehouse-auth",
              modules: true,
              scriptPath: authScript,
              modulesRoot: dirname(authScript),
              ...compat,
              bindings: { ...authVars, SESSION_SECRET: "security-consumer-secret-0123456789-abcdefgh" },
              kvNamespaces: { SESSIONS: "security-consumer-sessions" },
              durableObjects: { USER_SESSIONS: { className: "UserSessions", useSQLite: true } },
            },
            {
              name: "gatehouse-auth-misconfigured",
              modules: true,
              scriptPath: authScript,
              modulesRoot: dirname(authScript),
              ...compat,
              bindings: authVars,
              kvNamespaces: { SESSIONS: "security-consumer-sessions-misconfigured" },
            },
          ],
        },
      };
    }),
  ],
  test: { name: "security-consumer", root: import.meta.dirname, include: ["*.test.ts"] },
});
