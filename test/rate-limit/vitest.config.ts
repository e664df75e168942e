import { dirname } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";
import { bundleWorker } from "../node/consumer-auth-bundle.ts";

/** Isolates of the hot-key tests: auxiliary workers, one script (isolate/) bundled once, run four times. */
const ISOLATES = {
  ISOLATE_A: "rl-isolate-a",
  ISOLATE_B: "rl-isolate-b",
  ISOLATE_C: "rl-isolate-c",
  ISOLATE_D: "rl-isolate-d",
} as const;

/**
 * The test worker (wrangler.toml) plus four auxiliary workers "rl-isolate-<x>", each its own
 * isolate, whose RATE_LIMITER is the test worker's CountingRateLimiterDO namespace: several
 * isolates checking one key against one object, as in production. The test worker reaches them
 * through the service bindings ISOLATE_<X>. The plugin runs the test worker as
 * "vitest-plugin-runner-<project>", which is where the Durable Object classes live.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest(async () => {
      const script = await bundleWorker("test/rate-limit/isolate/wrangler.toml");
      return {
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          serviceBindings: ISOLATES,
          workers: Object.values(ISOLATES).map((name) => ({
            name,
            modules: true,
            scriptPath: script,
            modulesRoot: dirname(script),
            compatibilityDate: "2026-11-01",
            compatibilityFlags: ["nodejs_compat"],
            durableObjects: {
              RATE_LIMITER: { className: "CountingRateLimiterDO", scriptName: "vitest-plugin-runner-rate-limit" },
            },
          })),
        },
      };
    }),
  ],
  test: { name: "rate-limit", root: import.meta.dirname, include: ["**/*.test.ts"] },
});
