import { dirname } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { bundleWorker } from "../../test/node/consumer-auth-bundle.ts";
import { sourceAliases } from "../../tooling/source/aliases.ts";

/** The plugin runs the bench worker (wrangler.toml) under this name: the Durable Object classes live there. */
const RUNNER = "vitest-plugin-runner-bench-rate-limit";
const ISOLATES = 8;

/**
 * The bench worker plus eight auxiliary workers "rl-bench-isolate-<n>" (one script from isolate/,
 * bundled once), each its own isolate, bound to the bench worker's counting objects, ours and the
 * peer's: the hot-key bench's isolates, reached through the service bindings HOT_<n>.
 */
export default defineProject({
  resolve: { alias: sourceAliases },
  plugins: [
    cloudflareTest(async () => {
      const script = await bundleWorker("bench/rate-limit/isolate/wrangler.toml");
      const names = Array.from({ length: ISOLATES }, (_, i) => i + 1);
      return {
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          serviceBindings: Object.fromEntries(names.map((n) => [`HOT_${n}`, `rl-bench-isolate-${n}`])),
          workers: names.map((n) => ({
            name: `rl-bench-isolate-${n}`,
            modules: true,
            scriptPath: script,
            modulesRoot: dirname(script),
            compatibilityDate: "2026-11-01",
            compatibilityFlags: ["nodejs_compat"],
            durableObjects: {
              RATE_LIMITER: { className: "CountingRateLimiterDO", scriptName: RUNNER },
              PEER_LIMITER: { className: "CountingPeerRateLimiter", scriptName: RUNNER },
            },
          })),
        },
      };
    }),
  ],
  test: { name: "bench-rate-limit", root: import.meta.dirname, include: ["**/*.bench.ts"] },
});
