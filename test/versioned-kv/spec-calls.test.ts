/**
 * Issue 26 item 4: the spec's own VersionedKVStore calls, with exactly the spec's arguments, do what
 * ../shared/SPEC.md says; each test is named after its row. `put` used to skip rewriting content that
 * still had half its TTL left, so a value just put could expire half a `contentTtl` later. Expirations
 * are read back from the real local KV (`list` reports each key's `expiration`), against the store's
 * injected clock, which is what it computes them from.
 */
import { env } from "cloudflare:workers";
import { KVStore } from "gatehouse-workers/bindings";
import { VersionedKVStore } from "gatehouse-workers/versioned-kv";
import { describe, expect, it } from "vitest";
import { referenceHash, spy, uniqueKey } from "./helpers";

const START = 1_800_000_000_000;

/** The Unix second KV will drop `content:{hash}` (undefined: no such key). */
async function contentExpiry(hash: string): Promise<number | undefined> {
  return (await env.VKV.list({ prefix: `content:${hash}` })).keys[0]?.expiration;
}

describe("SPEC: VersionedKVStore constructor (kv: KVStore | raw namespace, options?: VersionedKVOptions)", () => {
  it("takes a KVStore or the raw namespace, with or without options; contentTtl defaults to 86400", async () => {
    const key = uniqueKey("ctor");
    for (const store of [
      new VersionedKVStore(env.VKV),
      new VersionedKVStore(new KVStore(env.VKV)),
      new VersionedKVStore(env.VKV, {}),
      new VersionedKVStore(new KVStore(env.VKV), { contentTtl: 3600 }),
    ]) {
      await store.put(key, { key });
      expect(await store.get(key)).toEqual({ key });
    }
    const hash = await new VersionedKVStore(env.VKV, { now: () => START }).put(uniqueKey("ctor"), { key, START });
    expect(await contentExpiry(hash)).toBeGreaterThanOrEqual(START / 1000 + 86_400);
  });
});

describe("SPEC: put<T>(key, value): Promise<string>", () => {
  it("leaves the value readable for its full contentTtl (default 86400 s) from every put, however soon it is repeated", async () => {
    let now = START;
    const { kv, ops } = spy(env.VKV);
    const store = new VersionedKVStore(kv, { now: () => now });
    const key = uniqueKey("full-ttl");
    const value = { flags: { beta: true }, key };
    // Seconds after the first put; the half-TTL mark (43200) is where the old store stopped refreshing.
    for (const after of [0, 1, 60, 1800, 3599, 3600, 3601, 3602, 43_200, 43_201, 86_399, 86_400]) {
      now = START + after * 1000;
      const hash = await store.put(key, value);
      expect(hash).toBe(referenceHash(value));
      const expiry = await contentExpiry(hash);
      expect(expiry, `${after} s after the first put`).toBeGreaterThanOrEqual(now / 1000 + 86_400);
      expect(await store.get(key)).toEqual(value);
    }
    // Still no write per put: content is rewritten once it has less than contentTtl left (at 0,
    // 3601, 43200 and 86399 s here), never more than once per refresh window (an hour).
    expect(ops.written.filter((k) => k.startsWith("content:"))).toHaveLength(4);
  });

  it("keeps that promise at KV's minimum contentTtl (60 s) and when switching back to an earlier version", async () => {
    let now = START;
    const store = new VersionedKVStore(env.VKV, { contentTtl: 60, now: () => now });
    const key = uniqueKey("min-ttl");
    const first = await store.put(key, { v: 1, key });
    for (const after of [1, 29, 30, 31, 59, 61]) {
      now = START + after * 1000;
      const hash = await store.put(key, after % 2 === 0 ? { v: 1, key } : { v: 2, key });
      expect(await contentExpiry(hash), `${after} s`).toBeGreaterThanOrEqual(now / 1000 + 60);
    }
    now = START + 200_000;
    expect(await store.put(key, { v: 1, key })).toBe(first);
    expect(await contentExpiry(first)).toBeGreaterThanOrEqual(now / 1000 + 60);
    expect(await store.get(key)).toEqual({ v: 1, key });
  });

  it("serializes to JSON, writes content:{sha256} and ptr:{key}, returns the hash", async () => {
    const store = new VersionedKVStore(env.VKV);
    const key = uniqueKey("layout");
    const hash = await store.put(key, ["a", { b: 1 }]);
    expect(hash).toBe(referenceHash(["a", { b: 1 }]));
    expect(await env.VKV.get(`content:${hash}`)).toBe('["a",{"b":1}]');
    expect(await env.VKV.get(`ptr:${key}`)).toBe(hash);
  });
});

describe("SPEC: get<T>(key): Promise<T | null>", () => {
  it("reads the pointer, fetches and parses the content; null if pointer or content is missing", async () => {
    const store = new VersionedKVStore(env.VKV);
    const key = uniqueKey("get");
    expect(await store.get(key)).toBeNull();
    const hash = await store.put(key, { title: "Q3" });
    expect(await store.get<{ title: string }>(key)).toEqual({ title: "Q3" });
    await env.VKV.delete(`content:${hash}`);
    expect(await store.get(key)).toBeNull();
  });
});

describe("SPEC: getVersion(key): Promise<string | null>", () => {
  it("returns the current hash without fetching content", async () => {
    const { kv, ops } = spy(env.VKV);
    const store = new VersionedKVStore(kv);
    const key = uniqueKey("version");
    expect(await store.getVersion(key)).toBeNull();
    const hash = await store.put(key, "one");
    ops.reads = 0;
    expect(await store.getVersion(key)).toBe(hash);
    expect(ops.reads).toBe(1);
  });
});

describe("SPEC: isCurrent(key, hash): Promise<boolean>", () => {
  it("is true when the stored pointer equals hash", async () => {
    const store = new VersionedKVStore(env.VKV);
    const key = uniqueKey("current");
    const first = await store.put(key, "one");
    expect(await store.isCurrent(key, first)).toBe(true);
    await store.put(key, "two");
    expect(await store.isCurrent(key, first)).toBe(false);
  });
});

describe("SPEC: delete(key): Promise<void>", () => {
  it("deletes only the pointer; content keys expire by TTL", async () => {
    const store = new VersionedKVStore(env.VKV);
    const key = uniqueKey("delete");
    const hash = await store.put(key, { gone: key });
    await store.delete(key);
    expect(await store.get(key)).toBeNull();
    expect(await env.VKV.get(`content:${hash}`)).not.toBeNull();
  });
});
