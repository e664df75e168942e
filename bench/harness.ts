/**
 * @module
 * Benchmark helpers that run inside workerd. Every metric is a ratio or a
 * count measured side by side in one run, never an absolute time compared
 * with a constant, and never asserted in `npm test`. Metrics travel to the
 * Node side through Vitest task meta; bench/reporter.ts writes them out.
 */
import type { TestContext } from "vitest";

import type { Metric } from "../tooling/results/metric";

export type { Metric };

declare module "vitest" {
  interface TaskMeta {
    metrics?: Record<string, Metric>;
  }
}

/**
 * Records a metric on the running benchmark. A goal stays the goal even when a run misses it: give
 * `reason` (why it is missed, shown in red beside the miss in the report and the console, only when
 * missed), never a goal relabelled as reported. `kind: "documented bound"` with `source` marks a
 * figure a document states rather than one this run measured.
 */
export function record(ctx: TestContext, name: string, metric: Metric): void {
  ctx.task.meta.metrics ??= {};
  ctx.task.meta.metrics[name] = metric;
}

/** Milliseconds `fn` takes for `iterations` sequential calls. */
export async function timeLoop(iterations: number, fn: (i: number) => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < iterations; i++) await fn(i);
  return performance.now() - start;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Mean of the middle half of `values`: robust to GC pauses and 1 ms timer steps. */
export function interquartileMean(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const q = Math.floor(sorted.length / 4);
  const middle = sorted.slice(q, sorted.length - q);
  return middle.reduce((a, b) => a + b, 0) / middle.length;
}

/**
 * Cost of `candidate` over `baseline`. After a warm-up, both run in
 * alternating batches (the order flips every batch) so that garbage
 * collection and JIT tiering fall on both sides evenly. workerd's clock has
 * 1 ms steps, so each batch lasts several milliseconds and the figure is the
 * ratio of the interquartile means of the batch times. A self-check,
 * `ratio(f, f)`, reads 1.00 ± 0.03 here.
 */
export async function ratio(
  candidate: (i: number) => Promise<unknown> | unknown,
  baseline: (i: number) => Promise<unknown> | unknown,
  { batches = 120, batch = 500, warmup = 5_000 } = {},
): Promise<{ ratio: number; candidateMs: number; baselineMs: number }> {
  await timeLoop(warmup, candidate);
  await timeLoop(warmup, baseline);
  const cand: number[] = [];
  const base: number[] = [];
  // A fixed pseudo-random order (xorshift), so neither side always runs first or second.
  let seed = 0x9e3779b9;
  const order = (_k: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed & 1) === 0;
  };
  for (let k = 0; k < batches; k++) {
    if (order(k)) {
      cand.push(await timeLoop(batch, candidate));
      base.push(await timeLoop(batch, baseline));
    } else {
      base.push(await timeLoop(batch, baseline));
      cand.push(await timeLoop(batch, candidate));
    }
  }
  const c = interquartileMean(cand);
  const b = interquartileMean(base);
  return { ratio: round(c / b), candidateMs: round(c), baselineMs: round(b) };
}

export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
