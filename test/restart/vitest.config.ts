import { defineProject } from "vitest/config";

// Issue 19, state that agrees after a restart: the local identity provider (in this process) and
// `wrangler dev` of the auth worker are started, stopped and started again on one temporary state
// directory, as `npm start` twice would. Plain Node (no workerd pool, no browser): the sign-ins go
// through the real pages over HTTP. One file, one stack at a time.
export default defineProject({
  test: {
    name: "restart",
    root: import.meta.dirname,
    include: ["**/*.test.ts"],
    environment: "node",
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
