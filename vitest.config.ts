import { defineConfig } from "vitest/config";

// One Vitest project per concern (test/<concern>/vitest.config.ts), each with
// its own wrangler.toml so fixtures and bindings stay beside the tests that use them.
export default defineConfig({
  test: {
    projects: ["test/*/vitest.config.ts"],
    testTimeout: 30_000,
    reporters: ["default", "./test/node/summary-reporter.ts"],
  },
});
