import { defineConfig } from "vitest/config";

// One Vitest project per concern (test/<concern>/vitest.config.ts), each with
// its own wrangler.toml so fixtures and bindings stay beside the tests that use them.
export default defineConfig({
  test: {
    projects: ["test/*/vitest.config.ts", "test/security/*/vitest.config.ts"],
    testTimeout: 30_000,
    reporters: ["default", "./test/node/summary-reporter.ts"],
    // The Workers pool runs an RPC entrypoint in the same isolate as the tests, so an error an
    // entrypoint deliberately throws back to its caller (argument validation: a TypeError) is also
    // reported as unhandled there. The caller's assertion already checks it; anything else counts.
    // The same for app connections' entrypoint and registry (issue 31): a refused notice or a
    // holder that did not answer throws `AppConnectionsError` back to the auth worker, by design.
    onUnhandledError(error) {
      const remote = (error as { remote?: unknown }).remote === true;
      if (remote && (error.name === "TypeError" || error.name === "AppConnectionsError")) return false;
    },
  },
});
