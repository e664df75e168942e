/**
 * The package test's commands: tooling/package's runner, plus the names of the fixtures.
 */
export { node, type Ran, REPO_ROOT, run, TSC, userEnv, WRANGLER } from "../../tooling/package/index.ts";

export const FIXTURES = ["consumer", "auth-worker", "library"] as const;
export type FixtureName = (typeof FIXTURES)[number];
