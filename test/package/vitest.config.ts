import { defineProject } from "vitest/config";

/**
 * The package as users get it (issue 16): a Node project. globalSetup builds dist/, packs the
 * tarball and installs it with its peers from the registry into the fixture projects in a
 * temporary folder outside the repository; the tests type-check, lint, bundle and run them.
 */
export default defineProject({
  test: {
    name: "package",
    root: import.meta.dirname,
    include: ["**/*.test.ts"],
    exclude: ["fixtures/**", "**/node_modules/**"],
    environment: "node",
    globalSetup: ["./setup.ts"],
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
});
