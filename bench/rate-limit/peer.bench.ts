/**
 * Checks per second of DORateLimiter over the Durable Object store of
 * @hono-rate-limiter/cloudflare (`DurableObjectStore.increment`: one RPC to its
 * DurableObjectRateLimiter per request), same workerd, same run, both on
 * SQLite-backed objects.
 *
 * ratelimit.vs_peer_ratio (32 checks in flight over 8 keys) and
 * ratelimit.vs_peer_ratio_hot_key (50 in flight on one key: a login storm, an
 * API key hammering): limits high enough that every check is admitted, so the
 * blocked-key memory cannot help; the peer pays one RPC and one durable write
 * per check, ours one per batch of concurrent checks of a key (coalesced, each
 * still decided exactly by the object). ratelimit.vs_peer_ratio_over_limit:
 * the same keys once past their limit, i.e. abusive traffic: ours answers
 * from the isolate's memory, the peer still increments its object.
 * ratelimit.checks_per_ms_c<N> / ratelimit.peer_checks_per_ms_c<N>: admitted
 * checks per ms of each at N in flight over 8 keys, N = 1 … 200 (the curve).
 */

import { env } from "cloudflare:workers";
import { DurableObjectStore } from "@hono-rate-limiter/cloudflare";
import { StatefulObjectClient } from "gatehouse-workers/bindings";
import { DORateLimiter } from "gatehouse-workers/rate-limit";
import { it } from "vitest";
import { MAX_LIMIT } from "../../client-sdk/rate-limit";
import { median, ratio, record, round } from "../harness";

const KEYS = Array.from({ length: 8 }, (_, i) => `198.51.100.${i + 1}`);
const IN_FLIGHT = 32;
const HOT_KEY = ["203.0.113.77"];
const HOT_IN_FLIGHT = 50;
const OPTIONS = { batches: 30, batch: 8, warmup: 50 };
const CURVE = [1, 2, 5, 10, 20, 50, 100, 200];

function setup(limit: number) {
  const ours = new DORateLimiter(new StatefulObjectClient(env.RATE_LIMITER), {
    limit,
    window: 3_600,
    prefix: `peer-${crypto.randomUUID()}:`,
  });
  const peer = new DurableObjectStore({ namespace: env.PEER_LIMITER, prefix: `peer-${crypto.randomUUID()}:` });
  peer.init({ windowMs: 3_600_000 } as Parameters<typeof peer.init>[0]);
  return { ours, peer };
}

/** Checks per millisecond of `run` (one flight of `inFlight` checks per call) over at least `ms`. */
async function checksPerMs(run: (i: number) => Promise<unknown>, inFlight = IN_FLIGHT, ms = 100): Promise<number> {
  const start = performance.now();
  let flights = 0;
  // The cap guards against a frozen clock (workerd may stop it between I/O).
  while (performance.now() - start < ms && flights < 100_000) await run(flights++);
  return (flights * inFlight) / (performance.now() - start);
}

const flight =
  (check: (key: string) => Promise<unknown>, keys = KEYS, inFlight = IN_FLIGHT) =>
  (i: number) =>
    Promise.all(Array.from({ length: inFlight }, (_, j) => check(keys[(i * inFlight + j) % keys.length]!)));

/** Ours over the peer on admitted traffic, `inFlight` checks at a time over `keys`; both must count every check. */
async function admittedRatio(keys: string[], inFlight: number) {
  const { ours, peer } = setup(MAX_LIMIT);
  const result = await ratio(
    flight((key) => ours.check(key), keys, inFlight),
    flight((key) => peer.increment(key), keys, inFlight),
    OPTIONS,
  );
  // Both must really have counted every check, or the comparison means nothing.
  const calls = ((OPTIONS.warmup + OPTIONS.batches * OPTIONS.batch) * inFlight) / keys.length;
  const a = await ours.check(keys[0]!);
  const b = await peer.increment(keys[0]!);
  if (a.source !== "store" || a.remaining !== MAX_LIMIT - calls - 1) throw new Error(`ours counted ${a.remaining}`);
  if (b.totalHits !== calls + 1) throw new Error(`the peer counted ${b.totalHits}`);
  // ratio() is candidate time over baseline time; checks per second is its inverse.
  return { value: round(1 / result.ratio), ...result, inFlight, keys: keys.length };
}

it("ratelimit.vs_peer_ratio", { timeout: 600_000 }, async (ctx) => {
  const result = await admittedRatio(KEYS, IN_FLIGHT);
  record(ctx, "ratelimit.vs_peer_ratio", { value: result.value, unit: "x", goal: ">= 1.5" });
  console.log("ratelimit.vs_peer_ratio", result);
});

it("ratelimit.vs_peer_ratio_hot_key", { timeout: 600_000 }, async (ctx) => {
  const result = await admittedRatio(HOT_KEY, HOT_IN_FLIGHT);
  record(ctx, "ratelimit.vs_peer_ratio_hot_key", { value: result.value, unit: "x", goal: ">= 3.0" });
  console.log("ratelimit.vs_peer_ratio_hot_key", result);
});

it("ratelimit.checks_per_ms_c1 … c200 (the curve, ours and the peer)", { timeout: 600_000 }, async (ctx) => {
  const { ours, peer } = setup(MAX_LIMIT);
  const rows: Record<string, [number, number]> = {};
  // Warm both up first, or the first point measures the JIT.
  await checksPerMs(
    flight((key) => ours.check(key), KEYS, 8),
    8,
    200,
  );
  await checksPerMs(
    flight((key) => peer.increment(key), KEYS, 8),
    8,
    200,
  );
  for (const n of CURVE) {
    // Alternate, three rounds each, and keep each side's median round.
    const mine: number[] = [];
    const theirs: number[] = [];
    for (let r = 0; r < 3; r++) {
      mine.push(
        await checksPerMs(
          flight((key) => ours.check(key), KEYS, n),
          n,
          150,
        ),
      );
      theirs.push(
        await checksPerMs(
          flight((key) => peer.increment(key), KEYS, n),
          n,
          150,
        ),
      );
    }
    const a = round(median(mine), 2);
    const b = round(median(theirs), 2);
    rows[`c${n}`] = [a, b];
    record(ctx, `ratelimit.checks_per_ms_c${n}`, { value: a, unit: "checks/ms", goal: "reported (curve)" });
    record(ctx, `ratelimit.peer_checks_per_ms_c${n}`, { value: b, unit: "checks/ms", goal: "reported (curve)" });
  }
  console.log("ratelimit throughput by concurrency [ours, peer] checks/ms", rows);
});

it("ratelimit.vs_peer_ratio_over_limit", { timeout: 600_000 }, async (ctx) => {
  const { ours, peer } = setup(10);
  for (const key of KEYS) {
    for (let i = 0; i < 11; i++) {
      await ours.check(key);
      await peer.increment(key);
    }
  }
  // Ours is far below the 1 ms clock step per batch here, so compare checks per ms over
  // alternating rounds of at least 100 ms each, and take the median round.
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const mine = await checksPerMs(flight((key) => ours.check(key)));
    const theirs = await checksPerMs(flight((key) => peer.increment(key)));
    rounds.push(mine / theirs);
  }
  const a = await ours.check(KEYS[0]!);
  if (a.allowed || a.source !== "memory") throw new Error("ours was not answering from memory");
  const value = median(rounds);
  record(ctx, "ratelimit.vs_peer_ratio_over_limit", {
    value: round(value, 1),
    unit: "x",
    goal: "reported (keys past their limit)",
  });
  console.log("ratelimit.vs_peer_ratio_over_limit", { rounds: rounds.map((x) => round(x, 1)) });
});
