/** KVStore over a real local KV namespace. */
import { env } from "cloudflare:workers";
import { BindingError, KVStore } from "gatehouse-workers/bindings";
import { describe, expect, it } from "vitest";

describe("KVStore", () => {
  const kv = new KVStore(env.CACHE);

  it("exposes the raw binding", () => {
    expect(kv.raw).toBe(env.CACHE);
  });

  it("reads null for an absent key, text by default and JSON on request", async () => {
    expect(await kv.get("kv:absent")).toBeNull();
    expect(await kv.get("kv:absent", "json")).toBeNull();
    await kv.put("kv:text", "hello");
    expect(await kv.get("kv:text")).toBe("hello");
    await kv.putJson("kv:json", { n: 1, list: ["a"] });
    expect(await kv.get<{ n: number; list: string[] }>("kv:json", "json")).toEqual({ n: 1, list: ["a"] });
    expect(await kv.get("kv:json")).toBe('{"n":1,"list":["a"]}');
  });

  it("stores ArrayBuffers and streams", async () => {
    await kv.put("kv:bytes", new TextEncoder().encode("bytes").buffer as ArrayBuffer);
    expect(await kv.get("kv:bytes")).toBe("bytes");
    await kv.put("kv:stream", new Response("streamed").body!);
    expect(await kv.get("kv:stream")).toBe("streamed");
  });

  it("returns metadata with the value; both null when absent", async () => {
    await kv.putJson("kv:meta", { v: 1 }, { metadata: { owner: "ada" }, expirationTtl: 3600 });
    expect(await kv.getWithMetadata<{ v: number }, { owner: string }>("kv:meta", "json")).toEqual({
      value: { v: 1 },
      metadata: { owner: "ada" },
    });
    await kv.put("kv:nometa", "x");
    expect(await kv.getWithMetadata("kv:nometa")).toEqual({ value: "x", metadata: null });
    expect(await kv.getWithMetadata("kv:absent")).toEqual({ value: null, metadata: null });
  });

  it("deletes, and deleting an absent key is a no-op", async () => {
    await kv.put("kv:gone", "x");
    await kv.delete("kv:gone");
    expect(await kv.get("kv:gone")).toBeNull();
    await expect(kv.delete("kv:never-existed")).resolves.toBeUndefined();
  });

  it("lists by prefix, page by page with the cursor", async () => {
    await Promise.all(["a", "b", "c", "d", "e"].map((k) => kv.put(`list:${k}`, k)));
    const first = await kv.list({ prefix: "list:", limit: 2 });
    expect(first.keys.map((k) => k.name)).toEqual(["list:a", "list:b"]);
    expect(first.list_complete).toBe(false);
    const names = first.keys.map((k) => k.name);
    let cursor = first.list_complete ? undefined : first.cursor;
    while (cursor) {
      const page = await kv.list({ prefix: "list:", limit: 2, cursor });
      names.push(...page.keys.map((k) => k.name));
      cursor = page.list_complete ? undefined : page.cursor;
    }
    expect(names).toEqual(["list:a", "list:b", "list:c", "list:d", "list:e"]);
  });

  it("rejects an expirationTtl under KV's 60-second floor, and values JSON cannot hold", async () => {
    const short = await kv.put("kv:ttl", "x", { expirationTtl: 30 }).catch((e: unknown) => e);
    expect(short).toBeInstanceOf(BindingError);
    expect((short as BindingError).code).toBe("invalid_argument");
    expect((short as BindingError).message).toContain("at least 60 seconds");
    expect(await kv.get("kv:ttl")).toBeNull();
    await expect(kv.putJson("kv:fn", () => 1)).rejects.toBeInstanceOf(BindingError);
    await expect(kv.putJson("kv:big", { n: 1n })).rejects.toBeInstanceOf(BindingError);
  });
});
