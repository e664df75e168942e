/**
 * Collects the metrics benchmarks recorded in task meta, merges them into
 * bench/results/latest.json (so `npm run load` can add its own keys) and
 * prints a table. Runs in Node, inside Vitest.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Reporter, TestCase } from "vitest/node";
import type { Metric } from "../harness";

export const RESULTS = resolve(import.meta.dirname, "../results/latest.json");

export function mergeResults(metrics: Record<string, Metric>): Record<string, Metric> {
  let previous: Record<string, Metric> = {};
  try {
    previous = JSON.parse(readFileSync(RESULTS, "utf8"));
  } catch {}
  const merged = { ...previous, ...metrics };
  const sorted = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
  mkdirSync(dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, `${JSON.stringify(sorted, null, 2)}\n`);
  return sorted;
}

export function printTable(metrics: Record<string, Metric>): void {
  const rows = Object.entries(metrics).map(([name, m]) => [name, String(m.value), m.unit, m.goal]);
  const head = ["metric", "value", "unit", "goal"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  console.log(`\n${line(head)}\n${widths.map((w) => "-".repeat(w)).join("  ")}`);
  for (const r of rows) console.log(line(r));
}

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
