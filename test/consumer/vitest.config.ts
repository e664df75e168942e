import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";
import { consumerWithAuthWorker } from "../node/consumer-auth-bundle.ts";

/**
 * The consumer project: two workers in workerd. The main worker is the example
 * consumer (wrangler.toml); the auxiliary "gatehouse-auth" is the real auth
 * worker (bundled from auth-fixture/, with its KV and USER_SESSIONS Durable
 * Object), which the consumer reaches only through its service bindings.
 * "gatehouse-auth-misconfigured" is the same bundle without SESSION_SECRET, and
 * AUTH_DOWN points at a closed loopback port: the auth worker failing for real.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest(() => consumerWithAuthWorker("consumer-test", "consumer-test-secret-0123456789-abcdefghij")),
  ],
  test: { name: "consumer", root: import.meta.dirname, include: ["**/*.test.ts"] },
});
