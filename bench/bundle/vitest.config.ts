import { defineProject } from "vitest/config";
import { sourceAliases } from "../../tooling/source/aliases.ts";

// Bundle-size metrics run in Node (no cloudflareTest): they shell out to wrangler's
// dry-run bundler and gzip its output. See gzip-bundle.ts to measure another worker.
export default defineProject({
  resolve: { alias: sourceAliases },
  test: {
    name: "bench-bundle",
    root: import.meta.dirname,
    include: ["**/*.bench.ts"],
    environment: "node",
    testTimeout: 120_000,
  },
});
