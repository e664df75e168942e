import { defineProject } from "vitest/config";

// Bundle-size metrics run in Node (no cloudflareTest): they shell out to wrangler's dry-run
// bundler and gzip its output, on fixtures with the packed tarball installed (setup.ts).
// See gzip-bundle.ts to measure another worker.
export default defineProject({
  test: {
    globalSetup: ["./setup.ts"],
    name: "bench-bundle",
    root: import.meta.dirname,
    include: ["**/*.bench.ts"],
    environment: "node",
    testTimeout: 120_000,
  },
});
