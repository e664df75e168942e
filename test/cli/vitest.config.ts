import { defineProject } from "vitest/config";

// The command-line tool (scripts/cli) is Node code, so this project runs in Node (no workerd pool):
// commands run in-process against temp directories, and the executable itself runs as a child
// process (Node 24 strips the types of scripts/cli/main.ts, so no build is needed).
export default defineProject({
  test: {
    name: "cli",
    root: import.meta.dirname,
    include: ["**/*.test.ts"],
    environment: "node",
  },
});
