/**
 * ratelimit.do_exactness: admitted ÷ limit for 500 concurrent checks of one
 * key, limit 100, through DORateLimiter (goal exactly 1.000), sent from five
 * simulated isolates at once (each limiter over its own view of the binding
 * keeps its own memory and batches), so the object sees concurrent callers;
 * the same burst from a single isolate must read 1.000 too.
 * ratelimit.kv_overadmit: the same burst through KVRateLimiter, spread over
 * four isolates that share one KV namespace but not their memory (each
 * limiter over its own view of the binding is one isolate's state).
 */
import { env } from "cloudflare:workers";
import { DORateLimiter, KVRateLimiter, KVStore, StatefulObjectClient } from "gatehouse-workers";
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

async function doBurst(isolates: number): Promise<number> {
  const prefix = `exact-${crypto.randomUUID()}:`;
  const limiters = Array.from(
    { length: isolates },
    () =>
      new DORateLimiter(new StatefulObjectClient(namespaceView(env.RATE_LIMITER)), {
        limit: LIMIT,
        window: 60,
        clock,
        prefix,
      }),
  );
  const results = await Promise.all(
    Array.from({ length: BURST }, (_, i) => limiters[i % isolates]!.check("203.0.113.10")),
  );
  if (results.some((r) => r.source === "store_error")) throw new Error("store errors during the burst");
  return results.filter((r) => r.allowed).length;
}

it("ratelimit.do_exactness", async (ctx) => {
  const single = await doBurst(1);
  const admitted = await doBurst(5);
  if (single !== LIMIT) throw new Error(`one isolate admitted ${single} of limit ${LIMIT}`);
  record(ctx, "ratelimit.do_exactness", { value: round(admitted / LIMIT), unit: "x", goal: "= 1.000" });
  console.log("ratelimit.do_exactness", { admitted, single, limit: LIMIT, burst: BURST, isolates: 5 });
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
