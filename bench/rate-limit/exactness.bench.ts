/**
 * ratelimit.do_exactness: admitted ÷ what the limit allows for 500 concurrent
 * checks through DORateLimiter (goal exactly 1.000), in both shapes of the
 * peer bench: one hot key (limit 100) and 8 keys (limit 40 each, 62–63 checks
 * per key), sent from five simulated isolates at once (each limiter over its
 * own view of the binding keeps its own memory and coalesces its own batches),
 * so the object sees concurrent batches; the same bursts from a single isolate
 * must read 1.000 too. The metric is the worse of the two shapes.
 * ratelimit.kv_overadmit: the same burst through KVRateLimiter, spread over
 * four isolates that share one KV namespace but not their memory (each
 * limiter over its own view of the binding is one isolate's state).
 */
import { env } from "cloudflare:workers";
import { KVStore, StatefulObjectClient } from "gatehouse-workers/bindings";
import { DORateLimiter, KVRateLimiter } from "gatehouse-workers/rate-limit";
import { it } from "vitest";
import { record, round } from "../harness";

const BURST = 500;
const LIMIT = 100;
const ISOLATES = 4;
const clock = () => Date.UTC(2100, 0, 1, 0, 0, 30); // one instant, mid-window: the burst never spans two windows

/** One isolate's view of a namespace: same objects, separate binding object, so separate in-isolate state. */
function namespaceView(ns: DurableObjectNamespace): DurableObjectNamespace {
  return { idFromName: (name: string) => ns.idFromName(name), get: (id: DurableObjectId) => ns.get(id) } as never;
}

/** Admitted ÷ allowed for BURST concurrent checks spread over `keys`, `limit` each, from `isolates` isolates. */
async function doBurst(isolates: number, keys: string[], limit: number): Promise<number> {
  const prefix = `exact-${crypto.randomUUID()}:`;
  const limiters = Array.from(
    { length: isolates },
    () =>
      new DORateLimiter(new StatefulObjectClient(namespaceView(env.RATE_LIMITER)), {
        limit,
        window: 60,
        clock,
        prefix,
      }),
  );
  const results = await Promise.all(
    Array.from({ length: BURST }, (_, i) => limiters[i % isolates]!.check(keys[i % keys.length]!)),
  );
  if (results.some((r) => r.source === "store_error")) throw new Error("store errors during the burst");
  const allowed = keys.reduce((sum, _, k) => {
    const attempts = Math.floor(BURST / keys.length) + (k < BURST % keys.length ? 1 : 0);
    return sum + Math.min(limit, attempts);
  }, 0);
  return results.filter((r) => r.allowed).length / allowed;
}

const HOT = ["203.0.113.10"];
const EIGHT = Array.from({ length: 8 }, (_, i) => `198.51.100.${i + 20}`);

it("ratelimit.do_exactness", async (ctx) => {
  const single = [await doBurst(1, HOT, LIMIT), await doBurst(1, EIGHT, 40)];
  const spread = [await doBurst(5, HOT, LIMIT), await doBurst(5, EIGHT, 40)];
  if (single.some((x) => x !== 1)) throw new Error(`one isolate: ${single.join(", ")} of what the limit allows`);
  const worst = spread.reduce((a, b) => (Math.abs(b - 1) > Math.abs(a - 1) ? b : a));
  record(ctx, "ratelimit.do_exactness", { value: round(worst), unit: "x", goal: "= 1.000" });
  console.log("ratelimit.do_exactness", { hotKey: spread[0], eightKeys: spread[1], single, burst: BURST, isolates: 5 });
});

/** One isolate's view of the namespace: same data, separate object, so separate in-isolate state. */
function isolateView(kv: KVNamespace): KVNamespace {
  return {
    get: (key: string) => kv.get(key, "text"),
    put: (key: string, value: string, options?: KVNamespacePutOptions) => kv.put(key, value, options),
  } as unknown as KVNamespace;
}

async function kvBurst(isolates: number): Promise<number> {
  const prefix = `over-${crypto.randomUUID()}:`;
  const limiters = Array.from(
    { length: isolates },
    () => new KVRateLimiter(new KVStore(isolateView(env.RL_KV)), { limit: LIMIT, window: 60, clock, prefix }),
  );
  const results = await Promise.all(
    Array.from({ length: BURST }, (_, i) => limiters[i % isolates]!.check("203.0.113.11")),
  );
  if (results.some((r) => r.source === "store_error")) throw new Error("store errors during the burst");
  return results.filter((r) => r.allowed).length;
}

it("ratelimit.kv_overadmit", async (ctx) => {
  const single = await kvBurst(1);
  const spread = await kvBurst(ISOLATES);
  record(ctx, "ratelimit.kv_overadmit", {
    value: round(spread / LIMIT),
    unit: "x",
    goal: `reported; <= isolates (${ISOLATES} here), 1.000 in one isolate`,
  });
  console.log("ratelimit.kv_overadmit", { oneIsolate: single / LIMIT, isolates: ISOLATES, admitted: spread });
});
