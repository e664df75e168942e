import { defineProject } from "vitest/config";

// The structure of the source tree (issue 15): layers and import cycles, read from the files in Node.
export default defineProject({
  test: { name: "layers", root: import.meta.dirname, include: ["**/*.test.ts"], environment: "node" },
});
