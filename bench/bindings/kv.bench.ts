/**
 * bindings.kv_get_ratio: `KVStore.get` versus the raw binding's `get` on the
 * same key of the same local KV namespace, in the same run. The wrapper adds no
 * I/O and no copy, so the goal is parity (<= 1.05).
 */
import { env } from "cloudflare:workers";
import { KVStore } from "gatehouse-workers/bindings";
import { it } from "vitest";
import { ratio, record } from "../harness";

const kv = (env as unknown as { BENCH_KV: KVNamespace }).BENCH_KV;

it("bindings.kv_get_ratio", async (ctx) => {
  const store = new KVStore(kv);
  await kv.put("bench:key", "a value of a typical size for a session or a flag, ".repeat(4));
  const result = await ratio(
    () => store.get("bench:key"),
    () => kv.get("bench:key", "text"),
    { batches: 80, batch: 100, warmup: 1_000 },
  );
  record(ctx, "bindings.kv_get_ratio", { value: result.ratio, unit: "x", goal: "<= 1.05" });
  console.log("bindings.kv_get_ratio", result);
});
