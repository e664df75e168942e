/**
 * Issue 29, a hot key at internet scale: several isolates (auxiliary worker scripts, see
 * vitest.config.ts) check one key against one RateLimiterDO and lease slices of its window.
 * Counts, never times (local workerd runs every isolate and object on one thread), on an
 * injected clock. The proof: the isolates together never admit more than the limit, also when
 * one of them dies holding a lease, whose tokens stay debited until the window ends.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { StatefulObjectClient } from "gatehouse-workers/bindings";
import { DORateLimiter } from "gatehouse-workers/rate-limit";
import { describe, expect, it } from "vitest";
import { LEASE_TTL_MS } from "../../client-sdk/rate-limit";
import { HOT_AFTER_CHECKS, reserveCap } from "../../client-sdk/rate-limit/lease";
import { CLOCK_BASE, manualClock, uniqueKey } from "./helpers";
import type { IsolateCheck, IsolateDecision } from "./isolate/worker";
import type { CountingRateLimiterDO } from "./worker";

const LIMIT = 1_000;
const WINDOW = 60;
const MID = CLOCK_BASE + 30_000; // 30 s into a 60 s window
type Isolate = typeof env.ISOLATE_A;

/**
 * `total` checks of one key from `isolate`, `inFlight` at a time (each an RPC: a request of its
 * own); the i-th at `now(i)`, or all at `now`.
 */
async function drive(
  isolate: Isolate,
  check: Omit<IsolateCheck, "now">,
  total: number,
  inFlight: number,
  now: number | ((i: number) => number),
): Promise<(IsolateDecision & { now: number })[]> {
  const results: (IsolateDecision & { now: number })[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) {
        const i = next++;
        const at = typeof now === "number" ? now : now(i);
        results[i] = { ...(await isolate.check({ ...check, now: at })), now: at };
      }
    }),
  );
  return results;
}

const admitted = (results: IsolateDecision[]) => results.filter((r) => r.allowed).length;

/** What the object saw and holds: calls by kind, and the window's count (admitted + leased). */
function objectState(prefix: string, key: string, windowStart: number) {
  const ns = env.COUNTING_LIMITER;
  return runInDurableObject(ns.get(ns.idFromName(`${prefix}${key}`)), (o: CountingRateLimiterDO, state) => {
    const row = state.storage.sql
      .exec<{ count: number }>("SELECT count FROM rate_counts WHERE start_ms = ?", windowStart)
      .toArray()[0];
    return { served: o.served, leases: o.leases, releases: o.releases, count: row?.count ?? 0 };
  });
}

/** Checks `isolate` one at a time until it holds tokens of a lease (the object's count exceeds what it admitted). */
async function untilHolding(isolate: Isolate, check: Omit<IsolateCheck, "now">, now: number, admittedSoFar: number) {
  let mine = admittedSoFar;
  for (let i = 0; i < 100; i++) {
    const { count } = await objectState(check.prefix, check.key, MID - 30_000);
    if (count > mine) return { admitted: mine, held: count - mine };
    if ((await isolate.check({ ...check, now })).allowed) mine++;
  }
  throw new Error("the isolate never held a lease");
}

describe("a hot key leased across isolates", () => {
  it("4 isolates, 30 in flight each, twice the limit asked for: never one admission over the limit", async () => {
    const check = { key: uniqueKey("hot"), limit: LIMIT, window: WINDOW, prefix: uniqueKey("lease") };
    const isolates = [env.ISOLATE_A, env.ISOLATE_B, env.ISOLATE_C, env.ISOLATE_D];
    const runs = await Promise.all(isolates.map((isolate) => drive(isolate, check, 500, 30, MID)));
    const all = runs.flat();
    expect(all.filter((r) => r.source === "store_error")).toEqual([]);
    const total = admitted(all);
    expect(total).toBeLessThanOrEqual(LIMIT);
    // Demand outlasted every lease, so no isolate was left holding tokens it could not use.
    expect(total).toBeGreaterThanOrEqual(LIMIT - isolates.length * reserveCap(LIMIT));
    const seen = await objectState(check.prefix, check.key, MID - 30_000);
    expect(seen.count).toBeLessThanOrEqual(LIMIT);
    expect(seen.leases).toBeGreaterThan(0);
    // 2,000 checks: one call per lease, none for the refusals the blocked-key memory answers.
    expect(seen.served).toBeLessThan(all.length / 20);
  });

  it("an isolate that dies holding a lease: its tokens stay debited, the others stay within the limit, the next window is whole", async () => {
    const check = { key: uniqueKey("dies"), limit: LIMIT, window: WINDOW, prefix: uniqueKey("lease") };
    const first = admitted(await drive(env.ISOLATE_A, check, 200, 20, MID));
    const a = await untilHolding(env.ISOLATE_A, check, MID, first);
    expect(a.held).toBeGreaterThan(0);
    await env.ISOLATE_A.die(); // gone, with a.held tokens of a lease that nobody gives back

    // Past the dead lease's expiry, same window: the others share what the object has left, never more.
    const later = MID + LEASE_TTL_MS + 1;
    const [b, c] = await Promise.all([
      drive(env.ISOLATE_B, check, 750, 30, later),
      drive(env.ISOLATE_C, check, 750, 30, later),
    ]);
    const others = admitted(b) + admitted(c);
    expect(a.admitted + others).toBeLessThanOrEqual(LIMIT);
    expect(others).toBeLessThanOrEqual(LIMIT - a.admitted - a.held);
    expect(others).toBeGreaterThanOrEqual(LIMIT - a.admitted - a.held - 2 * reserveCap(LIMIT));
    expect((await objectState(check.prefix, check.key, MID - 30_000)).count).toBeLessThanOrEqual(LIMIT);
    // A fresh isolate asks the object itself: still refused, the dead lease is never handed out again.
    expect(await env.ISOLATE_D.check({ ...check, now: later })).toMatchObject({ allowed: false, source: "store" });
    // The window ends: the key is whole again, for the survivors and for a new isolate in A's script.
    const next = CLOCK_BASE + WINDOW * 1000;
    expect(await env.ISOLATE_B.check({ ...check, now: next })).toMatchObject({ allowed: true, source: "store" });
    expect(await env.ISOLATE_A.check({ ...check, now: next })).toMatchObject({ allowed: true, source: "store" });
  });

  it("a live isolate gives back what its expired lease left, and admits it again: exactly the limit in all", async () => {
    const check = { key: uniqueKey("back"), limit: LIMIT, window: WINDOW, prefix: uniqueKey("lease") };
    const first = admitted(await drive(env.ISOLATE_A, check, 200, 20, MID));
    const a = await untilHolding(env.ISOLATE_A, check, MID, first);
    // B takes everything else and is refused once the object is dry.
    const b = admitted(await drive(env.ISOLATE_B, check, LIMIT, 30, MID));
    expect(a.admitted + a.held + b).toBe(LIMIT);
    const before = await objectState(check.prefix, check.key, MID - 30_000);
    expect(before.count).toBe(LIMIT);
    // A's lease expires with tokens left: its next call returns them first, then leases them again.
    const later = MID + LEASE_TTL_MS;
    let again = 0;
    for (let i = 0; i < a.held + 5; i++) if ((await env.ISOLATE_A.check({ ...check, now: later })).allowed) again++;
    expect(again).toBe(a.held);
    const after = await objectState(check.prefix, check.key, MID - 30_000);
    expect(after.releases).toBeGreaterThanOrEqual(1);
    expect(after.count).toBe(LIMIT);
    expect(a.admitted + again + b).toBe(LIMIT);
  });
});

describe("a hot key leased across isolates, on a moving clock", () => {
  it("leases held when the window ends are never used in the next one; an isolate dying mid-window changes nothing", async () => {
    const limit = 600;
    const check = { key: uniqueKey("moving"), limit, window: WINDOW, prefix: uniqueKey("lease") };
    // Each isolate: 125 checks spread over window 0 (demand under the limit, so leases are still
    // held when it ends), then 300 in window 1 (three isolates: 1.5 times the limit).
    const at = (i: number) => (i < 125 ? CLOCK_BASE + i * 480 : CLOCK_BASE + WINDOW * 1000 + (i - 125) * 200);
    const [a, b, c, d] = await Promise.all([
      drive(env.ISOLATE_A, check, 425, 20, at),
      drive(env.ISOLATE_B, check, 425, 20, at),
      drive(env.ISOLATE_C, check, 425, 20, at),
      drive(env.ISOLATE_D, check, 60, 20, at).then(async (r) => {
        await env.ISOLATE_D.die(); // 29 s in, with whatever it holds
        return r;
      }),
    ]);
    const all = [a, b, c, d].flat();
    expect(all.filter((r) => r.source === "store_error")).toEqual([]);
    const inWindow = (w: number) => all.filter((r) => Math.floor((r.now - CLOCK_BASE) / (WINDOW * 1000)) === w);
    // Window 0: 435 checks, under the limit even with every reserve held: all admitted.
    expect(admitted(inWindow(0))).toBe(435);
    // Window 1: 900 checks for 600; what the isolates still held of window 0 counts for nothing.
    expect(admitted(inWindow(1))).toBeLessThanOrEqual(limit);
    expect(admitted(inWindow(1))).toBeGreaterThanOrEqual(limit - 3 * reserveCap(limit));
    const seen = await objectState(check.prefix, check.key, CLOCK_BASE + WINDOW * 1000);
    expect(seen.count).toBeLessThanOrEqual(limit);
    expect(seen.leases).toBeGreaterThan(0);
  });
});

describe("a key that is not hot", () => {
  const counted = (prefix: string, key: string) => {
    const ns = env.COUNTING_LIMITER;
    return runInDurableObject(ns.get(ns.idFromName(`${prefix}${key}`)), (o: CountingRateLimiterDO) => ({
      served: o.served,
      leases: o.leases,
    }));
  };
  const limiter = (prefix: string, options: { limit?: number; leasing?: boolean } = {}) =>
    new DORateLimiter(new StatefulObjectClient(env.COUNTING_LIMITER), {
      limit: 10_000,
      window: WINDOW,
      clock: manualClock(30_000),
      prefix,
      ...options,
    });
  const bursts = async (rl: DORateLimiter, key: string, n: number, size: number) => {
    for (let i = 0; i < n; i++) await Promise.all(Array.from({ length: size }, () => rl.check(key)));
  };

  it(`keeps one call per batch until it has sent ${HOT_AFTER_CHECKS} checks in the window, then leases`, async () => {
    const prefix = uniqueKey("cold");
    const rl = limiter(prefix);
    const key = uniqueKey();
    await bursts(rl, key, HOT_AFTER_CHECKS / 4, 4);
    expect(await counted(prefix, key)).toEqual({ served: HOT_AFTER_CHECKS / 4, leases: 0 });
    await bursts(rl, key, 50, 4);
    const hot = await counted(prefix, key);
    expect(hot.leases).toBeGreaterThan(0);
    expect(hot.served).toBeLessThan(HOT_AFTER_CHECKS / 4 + 10);
  });

  it("with leasing: false, and under a limit of 512, stays one call per batch however hot", async () => {
    for (const options of [{ leasing: false }, { limit: 511 }]) {
      const prefix = uniqueKey("off");
      const key = uniqueKey();
      await bursts(limiter(prefix, options), key, 100, 4);
      expect(await counted(prefix, key)).toEqual({ served: 100, leases: 0 });
    }
  });
});
