/**
 * Collects the metrics benchmarks recorded in task meta, merges them into
 * bench/results/latest.json through tooling/results (so `npm run load` can add
 * its own keys) and prints a table. Runs in Node, inside Vitest.
 */
import type { Reporter, TestCase } from "vitest/node";
import { type Metric, mergeResults, printTable, RESULTS } from "../../tooling/results/index.ts";

export default class BenchReporter implements Reporter {
  #metrics: Record<string, Metric> = {};

  onTestCaseResult(testCase: TestCase): void {
    Object.assign(this.#metrics, testCase.meta().metrics ?? {});
  }

  onTestRunEnd(): void {
    if (Object.keys(this.#metrics).length === 0) return;
    mergeResults(this.#metrics);
    printTable(this.#metrics);
    console.log(`\nwrote ${RESULTS}`);
  }
}
