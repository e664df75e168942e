import { env } from "cloudflare:workers";
import { VersionedKVStore } from "gatehouse-workers/versioned-kv";
import { describe, expect, it } from "vitest";
import { spy, uniqueKey } from "./helpers";

describe("VersionedKVStore: waste-free puts", () => {
  it("writes content first, then the pointer: 1 read and 2 writes for a new value", async () => {
    const { kv, ops } = spy(env.VKV);
    const key = uniqueKey();
    const hash = await new VersionedKVStore(kv).put(key, { fresh: key });
    expect(ops).toEqual({ reads: 1, writes: 2, deletes: 0, written: [`content:${hash}`, `ptr:${key}`] });
  });

  it("writes nothing for 100 puts of an unchanged value after the first", async () => {
    const { kv, ops } = spy(env.VKV);
    const store = new VersionedKVStore(kv);
    const key = uniqueKey();
    const hash = await store.put(key, { same: key });
    ops.writes = 0;
    ops.reads = 0;
    for (let i = 0; i < 100; i++) expect(await store.put(key, { same: key })).toBe(hash);
    expect(ops.writes).toBe(0);
    expect(ops.reads).toBe(100);
  });

  it("writes only the pointer when switching back to a version whose content is known to live", async () => {
    const { kv, ops } = spy(env.VKV);
    const store = new VersionedKVStore(kv);
    const key = uniqueKey();
    const v1 = await store.put(key, { v: 1, key });
    await store.put(key, { v: 2, key });
    ops.written = [];
    expect(await store.put(key, { v: 1, key })).toBe(v1);
    expect(ops.written).toEqual([`ptr:${key}`]);
    expect(await store.get(key)).toEqual({ v: 1, key });
  });

  it("refreshes content (and the pointer's record of it) once less than contentTtl is left", async () => {
    const { kv, ops } = spy(env.VKV);
    let now = 1_800_000_000_000;
    const store = new VersionedKVStore(kv, { contentTtl: 3600, now: () => now });
    const key = uniqueKey();
    const hash = await store.put(key, { aging: key });
    // Written to live 3600 s + a 1800 s refresh window.
    now += 1800 * 1000; // exactly contentTtl left: still enough
    ops.written = [];
    await store.put(key, { aging: key });
    expect(ops.written).toEqual([]);
    now += 1000; // less than contentTtl left
    await store.put(key, { aging: key });
    expect(ops.written).toEqual([`content:${hash}`, `ptr:${key}`]);
    const meta = (await env.VKV.getWithMetadata(`ptr:${key}`)).metadata;
    expect(meta).toEqual({ known: [[hash, now / 1000 + 3600 + 1800]] });
    ops.written = [];
    await store.put(key, { aging: key });
    expect(ops.written).toEqual([]);
  });

  it("rewrites content when the pointer carries no record of it (written by something else)", async () => {
    const { kv, ops } = spy(env.VKV);
    const store = new VersionedKVStore(kv);
    const key = uniqueKey();
    const hash = await store.put(key, { foreign: key });
    await env.VKV.put(`ptr:${key}`, hash); // same hash, no metadata
    ops.written = [];
    await store.put(key, { foreign: key });
    expect(ops.written).toEqual([`content:${hash}`, `ptr:${key}`]);
  });

  it("forgets versions whose content has expired, and keeps at most 8", async () => {
    let now = 1_800_000_000_000;
    const store = new VersionedKVStore(env.VKV, { contentTtl: 60, now: () => now });
    const key = uniqueKey();
    for (let i = 0; i < 10; i++) await store.put(key, { i, key });
    let meta = (await env.VKV.getWithMetadata<{ known: [string, number][] }>(`ptr:${key}`)).metadata!;
    expect(meta.known).toHaveLength(8);
    now += 91_000; // past the 60 s TTL and its 30 s refresh window
    await store.put(key, { i: "late", key });
    meta = (await env.VKV.getWithMetadata<{ known: [string, number][] }>(`ptr:${key}`)).metadata!;
    expect(meta.known).toHaveLength(1);
  });
});
