/**
 * Issue 29, a hot key at internet scale. The scenario: one key, limit 10,000 per 60 s window;
 * 8 isolates (auxiliary worker scripts bound to the same limiter namespace, see vitest.config.ts),
 * 50 checks in flight in each, every check an RPC of its own (a request); 20,000 checks in the
 * window (twice the limit), 2,500 per isolate, spread evenly over the window on the injected
 * clock (the n-th check sent, over all isolates, at window start + 3n ms). Counts, never times:
 * local workerd runs every isolate and object on one thread.
 *
 * ratelimit.hot_key_object_calls_per_1k_checks: calls that reached the key's object (checks,
 *   batches, leases, returns, counted by the object) per 1,000 checks (goal <= 20).
 * ratelimit.hot_key_exactness: 1.000 when the isolates together admitted at most the limit and the
 *   object's count says the same; otherwise admitted ÷ limit rounded up to 4 places, so a single
 *   admission over the limit reads 1.0001 (goal = 1.000).
 * ratelimit.hot_key_underadmit_pct: (limit − admitted) ÷ limit, in %, demand having exceeded the
 *   limit (goal <= 5).
 * ratelimit.hot_key_peer_calls_per_1k_checks: the peer, @hono-rate-limiter/cloudflare's
 *   DurableObjectStore as its middleware uses it (increment per request), same scenario, counted
 *   by its object.
 * ratelimit.hot_key_unleased_calls_per_1k_checks: ours with `leasing: false` (coalescing only),
 *   same scenario: what leasing saves.
 *
 * The curves against the number of isolates N = 1, 2, 4, 8 (the report draws them): the same key,
 * limit, window, total demand (20,000 checks, twice the limit) and spread over the window; only
 * the checks are shared among N isolates (20,000 ÷ N each), 50 in flight in each. The limit and
 * the demand stay whole, not scaled by N, so the lease reserve's cap (`limit / 32`) is the same at
 * every N and the curve moves with the isolates alone. N = 8 is the scenario above: its points are
 * that run's, not a second one.
 * ratelimit.hot_key_calls_per_1k_checks_isolates_<N>: the object's calls per 1,000 checks, leased.
 * ratelimit.hot_key_unleased_calls_per_1k_checks_isolates_<N>: the same with `leasing: false`; the
 *   run fails unless it admitted exactly the limit.
 * ratelimit.hot_key_exactness_isolates_<N>: the leased run's exactness, as above (goal = 1.000 at
 *   every N).
 * The peer is measured at 8 isolates only: one call per check by design, so its curve is flat at
 * 1,000, and a run costs 20,000 object calls.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { it, type TestContext } from "vitest";
import { record, round } from "../harness";
import type { CountingPeerRateLimiter, CountingRateLimiterDO } from "./worker";

const LIMIT = 10_000;
const WINDOW = 60;
const CHECKS = 20_000;
const IN_FLIGHT = 50;
const ISOLATES = 8;
/** The curves' isolate counts below the scenario's 8 (whose points come from the scenario's runs). */
const SWEEP = [1, 2, 4] as const;
const START = Date.UTC(2100, 0, 1); // a window start, far enough ahead that no real-time alarm fires
const KEY = "203.0.113.29";
const isolates = () => [env.HOT_1, env.HOT_2, env.HOT_3, env.HOT_4, env.HOT_5, env.HOT_6, env.HOT_7, env.HOT_8];
type Isolate = typeof env.HOT_1;
type Answer = { allowed: boolean; source?: string };

/** The scenario over the first `count` isolates: each keeps IN_FLIGHT checks going until it has sent its share. */
async function scenario(
  check: (isolate: Isolate, now: number) => Promise<Answer>,
  count: number = ISOLATES,
): Promise<Answer[]> {
  const all = isolates().slice(0, count);
  const share = CHECKS / all.length;
  const answers: Answer[] = [];
  let issued = 0;
  await Promise.all(
    all.map(async (isolate) => {
      let sent = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (sent < share) {
            sent++;
            const now = START + Math.floor((issued++ * WINDOW * 1000) / CHECKS);
            answers.push(await check(isolate, now));
          }
        }),
      );
    }),
  );
  if (answers.length !== CHECKS) throw new Error(`sent ${answers.length} checks, not ${CHECKS}`);
  return answers;
}

/** Ours over the scenario: admitted, and what the key's object saw (calls, and its count for the window). */
async function ours(leasing: boolean, count: number = ISOLATES) {
  const prefix = `hot-${crypto.randomUUID()}:`;
  const answers = await scenario(
    (isolate, now) => isolate.check({ key: KEY, limit: LIMIT, window: WINDOW, now, prefix, leasing }),
    count,
  );
  if (answers.some((a) => a.source === "store_error")) throw new Error("store errors during the run");
  const ns = env.COUNTING_LIMITER;
  const seen = await runInDurableObject(ns.get(ns.idFromName(`${prefix}${KEY}`)), (o: CountingRateLimiterDO, state) => {
    const row = state.storage.sql.exec<{ count: number }>("SELECT count FROM rate_counts WHERE start_ms = ?", START);
    return { calls: o.served, count: row.toArray()[0]?.count ?? 0 };
  });
  return { admitted: answers.filter((a) => a.allowed).length, ...seen };
}

type Run = Awaited<ReturnType<typeof ours>>;

const perThousand = (calls: number) => round((calls * 1000) / CHECKS, 2);

/** 1 when neither the isolates nor the object counted past the limit, else the excess rounded up. */
function exactnessOf(run: Run): number {
  const most = Math.max(run.admitted, run.count);
  return most > LIMIT ? Math.ceil((most / LIMIT) * 1e4) / 1e4 : 1;
}

const underadmitOf = (run: Run) => round(((LIMIT - Math.min(LIMIT, run.admitted)) / LIMIT) * 100, 2);

/** The leased curve's points at `count` isolates. */
function recordLeased(ctx: TestContext, count: number, run: Run): void {
  record(ctx, `ratelimit.hot_key_calls_per_1k_checks_isolates_${count}`, {
    value: perThousand(run.calls),
    unit: "calls/1k checks",
    goal: "reported (curve by isolates)",
  });
  record(ctx, `ratelimit.hot_key_exactness_isolates_${count}`, { value: exactnessOf(run), unit: "x", goal: "= 1.000" });
}

/** The unleased curve's point at `count` isolates; a run that did not admit exactly the limit fails. */
function recordUnleased(ctx: TestContext, count: number, run: Run): void {
  if (run.admitted !== LIMIT || run.count !== LIMIT) {
    throw new Error(`unleased, ${count} isolates: admitted ${run.admitted}, counted ${run.count}`);
  }
  record(ctx, `ratelimit.hot_key_unleased_calls_per_1k_checks_isolates_${count}`, {
    value: perThousand(run.calls),
    unit: "calls/1k checks",
    goal: "reported (curve by isolates)",
  });
}

it("ratelimit.hot_key_* (8 isolates, 50 in flight each, 20,000 checks, limit 10,000)", {
  timeout: 600_000,
}, async (ctx) => {
  const run = await ours(true);
  record(ctx, "ratelimit.hot_key_object_calls_per_1k_checks", {
    value: perThousand(run.calls),
    unit: "calls/1k checks",
    goal: "<= 20",
  });
  record(ctx, "ratelimit.hot_key_exactness", { value: exactnessOf(run), unit: "x", goal: "= 1.000" });
  record(ctx, "ratelimit.hot_key_underadmit_pct", { value: underadmitOf(run), unit: "%", goal: "<= 5" });
  recordLeased(ctx, ISOLATES, run);
  console.log("ratelimit.hot_key (leasing)", {
    ...run,
    checks: CHECKS,
    limit: LIMIT,
    isolates: ISOLATES,
    inFlight: IN_FLIGHT,
  });
});

it("ratelimit.hot_key_unleased_calls_per_1k_checks (the same, leasing: false)", { timeout: 600_000 }, async (ctx) => {
  const run = await ours(false);
  recordUnleased(ctx, ISOLATES, run);
  record(ctx, "ratelimit.hot_key_unleased_calls_per_1k_checks", {
    value: perThousand(run.calls),
    unit: "calls/1k checks",
    goal: "reported (coalescing only)",
  });
  console.log("ratelimit.hot_key (leasing: false)", run);
});

it.for(SWEEP)(
  "ratelimit.hot_key_*_isolates_%i (the same 20,000 checks shared among that many isolates)",
  { timeout: 600_000 },
  async (count, ctx) => {
    const leased = await ours(true, count);
    recordLeased(ctx, count, leased);
    const unleased = await ours(false, count);
    recordUnleased(ctx, count, unleased);
    console.log(`ratelimit.hot_key (${count} isolates)`, {
      leased: { ...leased, underadmitPct: underadmitOf(leased) },
      unleased,
    });
  },
);

it("ratelimit.hot_key_peer_calls_per_1k_checks (the peer, same scenario)", { timeout: 600_000 }, async (ctx) => {
  const prefix = `hot-peer-${crypto.randomUUID()}:`;
  const answers = await scenario((isolate) => isolate.peer({ key: KEY, limit: LIMIT, window: WINDOW, prefix }));
  const ns = env.PEER_COUNTING;
  const calls = await runInDurableObject(
    ns.get(ns.idFromName(`${prefix}${KEY}`)),
    (o: CountingPeerRateLimiter) => o.served,
  );
  record(ctx, "ratelimit.hot_key_peer_calls_per_1k_checks", {
    value: perThousand(calls),
    unit: "calls/1k checks",
    goal: "reported (the peer: one call per check)",
  });
  // The peer's window runs on real time (it takes no clock), so its admissions are only logged.
  console.log("ratelimit.hot_key (peer)", { calls, admitted: answers.filter((a) => a.allowed).length });
});
