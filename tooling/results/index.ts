/**
 * @module
 * The results file of `npm run bench` (`bench/results/latest.json`, the load leg's `load.*` too) and
 * its table, written by the bench reporter (bench/node/reporter.ts); report.ts draws the same file as
 * HTML (`bench/results/latest.html`). Node only.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { styleText } from "node:util";
import type { Metric } from "./metric.ts";
import { kindText, parseGoal, reasonOf, verdict } from "./report.ts";

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

/**
 * The console summary: a row per metric with its verdict (a documented bound says so), then every
 * missed goal again in red with its reason. Colour only where the terminal takes it (`styleText`
 * leaves it out otherwise, and for NO_COLOR); the words say it either way.
 */
export function printTable(metrics: Record<string, Metric>): void {
  const judged = Object.entries(metrics).map(([name, m]) => ({
    name,
    m,
    verdict: verdict(Number(m.value), parseGoal(String(m.goal ?? ""))),
  }));
  const rows = judged.map(({ name, m, verdict: v }) => [
    name,
    String(m.value),
    m.unit,
    m.goal,
    m.kind === "documented bound" ? `${v} (documented bound)` : v,
  ]);
  const head = ["metric", "value", "unit", "goal", "verdict"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  console.log(`\n${line(head)}\n${widths.map((w) => "-".repeat(w)).join("  ")}`);
  rows.forEach((r, i) => {
    console.log(judged[i]!.verdict === "missed" ? styleText("red", line(r)) : line(r));
  });
  const missed = judged.filter((j) => j.verdict === "missed");
  if (missed.length > 0) {
    console.log(`\n${styleText(["red", "bold"], `Goals missed (${missed.length}):`)}`);
    for (const { name, m } of missed) {
      console.log(styleText("red", `  ✗ ${name}: ${m.value} ${m.unit}, goal ${m.goal}. ${reasonOf(m)}`));
    }
  }
  const bounds = judged.filter((j) => j.m.kind === "documented bound");
  for (const { name, m } of bounds) console.log(`  ${name}: ${kindText(m)}, not measured here`);
}
