import { defineProject } from "vitest/config";

// The browser flows: plain Node (no workerd pool). globalSetup starts the local identity provider
// and `wrangler dev` of the auth worker and the example consumer on free loopback ports; each test
// file drives Chromium (npm's @sparticuz/chromium) through playwright-core. Files run one at a time: they share the
// demo users, and the live sign-out is timed against a one-second budget.
export default defineProject({
  test: {
    name: "e2e",
    root: import.meta.dirname,
    // The live channel's outsider replay (issue 25) lives with the security suite and uses this stack.
    include: ["**/*.test.ts", "../security/live-attack/*.test.ts"],
    environment: "node",
    globalSetup: ["./stack/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 45_000,
    hookTimeout: 30_000,
  },
});
