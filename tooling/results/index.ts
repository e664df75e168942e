/**
 * @module
 * The results file of `npm run bench` (`bench/results/latest.json`, the load leg's `load.*` too) and
 * its table, written by the bench reporter (bench/node/reporter.ts); report.ts draws the same file as
 * HTML (`bench/results/latest.html`). Node only.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Metric } from "./metric.ts";

export type { Metric };

export const RESULTS = resolve(import.meta.dirname, "../../bench/results/latest.json");

/** Merges `metrics` into the results file (keeping other runs' keys) and returns the whole set. */
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
