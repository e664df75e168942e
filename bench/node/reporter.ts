/**
 * Collects the metrics benchmarks recorded in task meta (the workerd benches, the Node ones, the
 * load leg), merges them into bench/results/latest.json through tooling/results (keeping keys of
 * projects that did not run), prints a table and writes the HTML report of the merged set
 * (bench/results/latest.html). Runs in Node, inside Vitest.
 */
import type { Reporter, TestCase } from "vitest/node";
import { type Metric, mergeResults, printTable, RESULTS } from "../../tooling/results/index.ts";
import { writeReport } from "../../tooling/results/report.ts";

export default class BenchReporter implements Reporter {
  #metrics: Record<string, Metric> = {};

  onTestCaseResult(testCase: TestCase): void {
    Object.assign(this.#metrics, testCase.meta().metrics ?? {});
  }

  onTestRunEnd(): void {
    if (Object.keys(this.#metrics).length === 0) return;
    const merged = mergeResults(this.#metrics);
    printTable(this.#metrics);
    console.log(`\nwrote ${RESULTS}`);
    console.log(`wrote ${writeReport(merged)}`);
  }
}
