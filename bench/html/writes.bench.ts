/**
 * vkv.writes_identical_put: KV writes made by 100 puts of an unchanged value
 * after the first. Writes are counted by a pass-through proxy over the real
 * local namespace (bench only; the SDK never sees anything else).
 */
import { env } from "cloudflare:workers";
import { VersionedKVStore } from "gatehouse-workers/versioned-kv";
import { it } from "vitest";
import { record } from "../harness";

function countingWrites(kv: KVNamespace): { kv: KVNamespace; writes: () => number } {
  let writes = 0;
  const proxy = new Proxy(kv, {
    get(target, prop) {
      const original = Reflect.get(target, prop, target);
      if (typeof original !== "function") return original;
      return (...args: unknown[]) => {
        if (prop === "put" || prop === "delete") writes++;
        return original.apply(target, args);
      };
    },
  });
  return { kv: proxy, writes: () => writes };
}

it("vkv.writes_identical_put", async (ctx) => {
  const { kv, writes } = countingWrites(env.VKV);
  const store = new VersionedKVStore(kv);
  const value = { flags: { beta: true, rollout: 0.25 }, updated: "2026-11-01" };
  await store.put("bench:flags", value);
  const afterFirst = writes();
  for (let i = 0; i < 100; i++) await store.put("bench:flags", value);
  record(ctx, "vkv.writes_identical_put", { value: writes() - afterFirst, unit: "writes", goal: "0" });
  console.log("vkv.writes_identical_put", { firstPutWrites: afterFirst, identicalPutWrites: writes() - afterFirst });
});
