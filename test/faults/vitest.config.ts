import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";
import { closedPort } from "../node/consumer-auth-bundle.ts";

/**
 * The fault cases: the deployed auth worker (and the example consumer over its
 * AuthService) with KV, a session object or the rate limiter's store failing.
 * AUTH_DOWN points at a closed loopback port: an auth worker that cannot be reached.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest(async () => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        serviceBindings: { AUTH_DOWN: { external: { address: `127.0.0.1:${await closedPort()}`, http: {} } } },
      },
    })),
  ],
  test: { name: "faults", root: import.meta.dirname, include: ["**/*.test.ts"] },
});
