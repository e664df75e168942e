import { dirname } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { bundleWorker, closedPort } from "../node/consumer-auth-bundle.ts";

const compat = { compatibilityDate: "2026-11-01", compatibilityFlags: ["nodejs_compat"] };

/** What the real auth worker needs (test values; the identity provider is never called). */
const authVars = {
  AUTH_REDIRECT_URL: "https://auth.example.com/auth/callback",
  IDENTITY_API_KEY: "sk_test_unused",
  IDENTITY_CLIENT_ID: "client_unused",
};

/**
 * The consumer project: two workers in workerd. The main worker is the example
 * consumer (wrangler.toml); the auxiliary "gatehouse-auth" is the real auth
 * worker (bundled from auth-fixture/, with its KV and USER_SESSIONS Durable
 * Object), which the consumer reaches only through its service bindings.
 * "gatehouse-auth-misconfigured" is the same bundle without SESSION_SECRET, and
 * AUTH_DOWN points at a closed loopback port: the auth worker failing for real.
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
              bindings: { ...authVars, SESSION_SECRET: "consumer-test-secret-0123456789-abcdefghij" },
              kvNamespaces: { SESSIONS: "consumer-test-sessions" },
              durableObjects: { USER_SESSIONS: { className: "UserSessions", useSQLite: true } },
            },
            {
              name: "gatehouse-auth-misconfigured",
              modules: true,
              scriptPath: authScript,
              modulesRoot: dirname(authScript),
              ...compat,
              bindings: authVars,
              kvNamespaces: { SESSIONS: "consumer-test-sessions-misconfigured" },
            },
          ],
        },
      };
    }),
  ],
  test: { name: "consumer", root: import.meta.dirname, include: ["**/*.test.ts"] },
});
