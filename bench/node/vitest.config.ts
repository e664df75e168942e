import { defineProject } from "vitest/config";

// The load leg of `npm run bench` (`npm run load` runs it alone): Node drives `wrangler dev` of the
// auth worker and the example consumer with the local provider (scripts/load). Not part of `npm test`.
export default defineProject({
  test: {
    name: "bench-load",
    root: import.meta.dirname,
    include: ["load.bench.ts"],
    environment: "node",
    testTimeout: 300_000,
  },
});
