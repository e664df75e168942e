import { env, exports } from "cloudflare:workers";
import { KVStore } from "gatehouse-workers/bindings";
import { VersionedKVError, VersionedKVStore } from "gatehouse-workers/versioned-kv";
import { describe, expect, it } from "vitest";
import { referenceHash, spy, uniqueKey } from "./helpers";

const raw = () => env.VKV;

describe("VersionedKVStore: layout and spec rows", () => {
  it("put stores content:{sha256} and ptr:{key}, and returns the hash", async () => {
    const store = new VersionedKVStore(raw());
    const key = uniqueKey();
    const value = { title: "héllo ✓", n: [1, 2.5, null], nested: { ok: true } };
    const hash = await store.put(key, value);
    expect(hash).toBe(referenceHash(value));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await raw().get(`content:${hash}`, "text")).toBe(JSON.stringify(value));
    expect(await raw().get(`ptr:${key}`, "text")).toBe(hash);
  });

  it("hashes every JSON value kind like an independent SHA-256 of JSON.stringify", async () => {
    const store = new VersionedKVStore(raw());
    for (const value of ["", "text", 0, -1.5e300, true, false, null, [], {}, ["a", { b: [1] }], "😀\u0000\u2028"]) {
      expect(await store.put(uniqueKey(), value)).toBe(referenceHash(value));
    }
  });

  it("get returns the current value, or null when the pointer or content is missing", async () => {
    const store = new VersionedKVStore(raw());
    const key = uniqueKey();
    expect(await store.get(key)).toBeNull();
    await store.put(key, { v: 1 });
    expect(await store.get<{ v: number }>(key)).toEqual({ v: 1 });
    const hash = await store.put(key, { v: 2 });
    expect(await store.get(key)).toEqual({ v: 2 });
    await raw().delete(`content:${hash}`);
    expect(await store.get(key)).toBeNull();
  });

  it("getVersion reads only the pointer; isCurrent compares it", async () => {
    const { kv, ops } = spy(raw());
    const store = new VersionedKVStore(kv);
    const key = uniqueKey();
    expect(await store.getVersion(key)).toBeNull();
    expect(await store.isCurrent(key, "0".repeat(64))).toBe(false);
    const first = await store.put(key, "one");
    const second = await store.put(key, "two");
    ops.reads = 0;
    expect(await store.getVersion(key)).toBe(second);
    expect(ops.reads).toBe(1);
    expect(await store.isCurrent(key, second)).toBe(true);
    expect(await store.isCurrent(key, first)).toBe(false);
  });

  it("delete removes only the pointer; content stays until its TTL", async () => {
    const store = new VersionedKVStore(raw());
    const key = uniqueKey();
    const hash = await store.put(key, "kept");
    await store.delete(key);
    expect(await raw().get(`ptr:${key}`)).toBeNull();
    expect(await raw().get(`content:${hash}`)).toBe(JSON.stringify("kept"));
    expect(await store.get(key)).toBeNull();
    expect(await store.getVersion(key)).toBeNull();
    await store.delete(key); // absent: a no-op
  });

  it("accepts a KVStore wrapper as well as a raw namespace", async () => {
    const key = uniqueKey();
    const hash = await new VersionedKVStore(new KVStore(raw())).put(key, [1, 2]);
    expect(await new VersionedKVStore(raw()).get(key)).toEqual([1, 2]);
    expect(await raw().get(`ptr:${key}`)).toBe(hash);
  });

  it("serves values to a worker reading through the SDK", async () => {
    const key = uniqueKey("worker");
    const hash = await new VersionedKVStore(raw()).put(key, { on: true });
    const res = await exports.default.fetch(`http://x/${key}`);
    expect(await res.json()).toEqual({ version: hash, value: { on: true } });
  });
});

describe("VersionedKVStore: TTLs", () => {
  async function expirations(hash: string, key: string) {
    const content = (await raw().list({ prefix: `content:${hash}` })).keys;
    const pointer = (await raw().list({ prefix: `ptr:${key}` })).keys;
    return { content: content[0]?.expiration, pointer: pointer[0]?.expiration, pointerMeta: pointer[0]?.metadata };
  }

  it("content lives the default 86400 s (plus the refresh window, 1 h) from the put; the pointer never expires", async () => {
    const key = uniqueKey();
    const before = Math.floor(Date.now() / 1000);
    const hash = await new VersionedKVStore(raw()).put(key, { ttl: "default", key });
    const after = Math.ceil(Date.now() / 1000);
    const { content, pointer } = await expirations(hash, key);
    expect(content).toBeGreaterThanOrEqual(before + 86_400 + 3600);
    expect(content).toBeLessThanOrEqual(after + 86_400 + 3600);
    expect(pointer).toBeUndefined();
  });

  it("uses a custom contentTtl, and records the content expiry (KV's own, from the store's clock) in the pointer metadata", async () => {
    const key = uniqueKey();
    const now = 1_800_000_000_000;
    const hash = await new VersionedKVStore(raw(), { contentTtl: 120, now: () => now }).put(key, { ttl: 120, key });
    const { content, pointerMeta } = await expirations(hash, key);
    // contentTtl plus the refresh window (half the TTL): the very second the pointer records.
    expect(content).toBe(now / 1000 + 120 + 60);
    expect(pointerMeta).toEqual({ known: [[hash, now / 1000 + 180]] });
  });

  it.each([59, 0, -60, 60.5, Number.NaN, Number.POSITIVE_INFINITY, "3600"])(
    "rejects contentTtl %s at construction",
    (contentTtl) => {
      let error: unknown;
      try {
        new VersionedKVStore(raw(), { contentTtl: contentTtl as number });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(VersionedKVError);
      expect((error as VersionedKVError).code).toBe("invalid_option");
      expect((error as Error).message).toMatch(/contentTtl.*60/);
    },
  );

  it("accepts KV's minimum, 60 s", async () => {
    const key = uniqueKey();
    const hash = await new VersionedKVStore(raw(), { contentTtl: 60 }).put(key, { min: key });
    const { content } = await expirations(hash, key);
    const left = content! - Math.floor(Date.now() / 1000);
    expect(left).toBeGreaterThanOrEqual(60 + 30 - 1);
    expect(left).toBeLessThanOrEqual(60 + 30 + 1);
  });
});
