import { defineConfig } from "vitest/config";

// `npm run bench`: one project per concern (bench/<concern>/vitest.config.ts),
// run one file at a time so benchmarks do not compete for the two cores.
export default defineConfig({
  test: {
    projects: ["bench/*/vitest.config.ts"],
    testTimeout: 600_000,
    fileParallelism: false,
    maxWorkers: 1,
    reporters: ["default", "./bench/node/reporter.ts"],
  },
});
