import { env } from "cloudflare:workers";
import { VersionedKVError, VersionedKVStore } from "gatehouse-workers/versioned-kv";
import { describe, expect, it } from "vitest";
import { spy, uniqueKey } from "./helpers";

const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;

const UNSERIALISABLE: [string, unknown, RegExp][] = [
  ["undefined", undefined, /undefined/],
  ["a function", () => 1, /function/],
  ["a symbol", Symbol("s"), /symbol/],
  ["a BigInt", 10n, /BigInt/],
  ["a nested BigInt", { deep: { n: 1n } }, /BigInt/],
  ["a cycle", cyclic, /cycle/],
  ["NaN", Number.NaN, /NaN/],
  ["a nested Infinity", { x: [Number.POSITIVE_INFINITY] }, /Infinity/],
  ["a nested function", { ok: 1, run() {} }, /"run".*function/],
  ["undefined in an array", [1, undefined], /undefined/],
];

describe("VersionedKVStore: input it refuses", () => {
  it.each(UNSERIALISABLE)("refuses %s with a clear error and writes nothing", async (_, value, message) => {
    const { kv, ops } = spy(env.VKV);
    const key = uniqueKey();
    const error = await new VersionedKVStore(kv).put(key, value).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(VersionedKVError);
    expect((error as VersionedKVError).code).toBe("unserialisable_value");
    expect((error as Error).message).toMatch(message);
    expect(ops).toEqual({ reads: 0, writes: 0, deletes: 0, written: [] });
    expect(await env.VKV.get(`ptr:${key}`)).toBeNull();
  });

  it("omits undefined properties and honours toJSON, as JSON does", async () => {
    const store = new VersionedKVStore(env.VKV);
    const key = uniqueKey();
    await store.put(key, { a: 1, gone: undefined, at: new Date(0) });
    expect(await store.get(key)).toEqual({ a: 1, at: "1970-01-01T00:00:00.000Z" });
  });

  it("refuses a key longer than KV allows, before any I/O", async () => {
    const { kv, ops } = spy(env.VKV);
    const store = new VersionedKVStore(kv);
    const long = "é".repeat(255); // 510 bytes
    for (const call of [() => store.put(long, 1), () => store.get(long), () => store.delete(long)]) {
      const error = await Promise.resolve()
        .then(call)
        .catch((err: unknown) => err);
      expect((error as VersionedKVError).code).toBe("invalid_key");
    }
    expect(ops.reads + ops.writes + ops.deletes).toBe(0);
    expect(await store.put("x".repeat(508), "fits")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses a value over KV's 25 MiB limit, before any I/O", async () => {
    const { kv, ops } = spy(env.VKV);
    const error = await new VersionedKVStore(kv)
      .put(uniqueKey(), "x".repeat(25 * 1024 * 1024))
      .catch((err: unknown) => err);
    expect((error as VersionedKVError).code).toBe("value_too_large");
    expect(ops.reads + ops.writes).toBe(0);
  });
});
