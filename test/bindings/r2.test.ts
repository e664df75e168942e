/** ObjectStorage over a real local R2 bucket. */
import { env } from "cloudflare:workers";
import { ObjectStorage } from "gatehouse-workers/bindings";
import { describe, expect, it } from "vitest";

describe("ObjectStorage", () => {
  const files = new ObjectStorage(env.FILES);

  it("exposes the raw binding", () => {
    expect(files.raw).toBe(env.FILES);
  });

  it("puts and gets strings, ArrayBuffers and streams, with metadata", async () => {
    const stored = await files.put("r2/hello.txt", "hello", {
      httpMetadata: { contentType: "text/plain" },
      customMetadata: { owner: "ada" },
    });
    expect(stored?.key).toBe("r2/hello.txt");
    expect(stored?.size).toBe(5);
    const object = await files.get("r2/hello.txt");
    expect(await object?.text()).toBe("hello");
    expect(object?.httpMetadata?.contentType).toBe("text/plain");
    expect(object?.customMetadata).toEqual({ owner: "ada" });

    await files.put("r2/bytes.bin", Uint8Array.of(1, 2, 3).buffer);
    expect(new Uint8Array(await (await files.get("r2/bytes.bin"))!.arrayBuffer())).toEqual(Uint8Array.of(1, 2, 3));

    const body = new Response("streamed body").body!;
    const { readable, writable } = new FixedLengthStream(13);
    void body.pipeTo(writable);
    expect((await files.put("r2/stream.txt", readable))?.size).toBe(13);
    expect(await (await files.get("r2/stream.txt"))?.text()).toBe("streamed body");
  });

  it("reads null for absent keys, from get and head", async () => {
    expect(await files.get("r2/absent")).toBeNull();
    expect(await files.head("r2/absent")).toBeNull();
  });

  it("head returns metadata without the body", async () => {
    await files.put("r2/head.txt", "12345");
    const head = await files.head("r2/head.txt");
    expect(head?.size).toBe(5);
    expect(head).not.toHaveProperty("body");
  });

  it("deletes one key or many", async () => {
    await Promise.all(["r2/d1", "r2/d2", "r2/d3"].map((k) => files.put(k, k)));
    await files.delete("r2/d1");
    expect(await files.head("r2/d1")).toBeNull();
    await files.delete(["r2/d2", "r2/d3", "r2/never"]);
    expect(await files.head("r2/d2")).toBeNull();
    expect(await files.head("r2/d3")).toBeNull();
  });

  it("lists by prefix with limit and cursor", async () => {
    await Promise.all(["a", "b", "c"].map((k) => files.put(`list/${k}`, k)));
    const first = await files.list({ prefix: "list/", limit: 2 });
    expect(first.objects.map((o) => o.key)).toEqual(["list/a", "list/b"]);
    expect(first.truncated).toBe(true);
    const rest = await files.list({ prefix: "list/", limit: 2, cursor: first.truncated ? first.cursor : undefined });
    expect(rest.objects.map((o) => o.key)).toEqual(["list/c"]);
    expect(rest.truncated).toBe(false);
  });

  it("put answers null when the object cannot be stored", async () => {
    await files.put("r2/guarded", "v1");
    // A failed precondition: R2 itself answers null.
    expect(await files.put("r2/guarded", "v2", { onlyIf: { etagMatches: "not-the-etag" } })).toBeNull();
    expect(await (await files.get("r2/guarded"))?.text()).toBe("v1");
    // An upload R2 rejects (a stream of unknown length): null instead of a thrown error.
    expect(await files.put("r2/unknown-length", new ReadableStream({ start: (c) => c.close() }))).toBeNull();
    expect(await files.head("r2/unknown-length")).toBeNull();
  });
});
