import { defineProject } from "vitest/config";

// Live-channel metrics with a real browser: the e2e stack (local provider, `wrangler dev` of the
// auth worker and the example consumer, npm's Chromium), measured in Node.
export default defineProject({
  test: {
    name: "bench-live",
    root: import.meta.dirname,
    include: ["**/*.bench.ts"],
    environment: "node",
    globalSetup: ["../../test/e2e/stack/global-setup.ts"],
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
