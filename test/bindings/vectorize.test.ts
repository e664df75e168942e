/**
 * VectorStore. Vectorize has no local implementation (miniflare offers it only
 * as a remote binding), so the index is an in-memory stand-in (stand-ins.ts)
 * implementing the `Vectorize` interface of @cloudflare/workers-types.
 */
import { BindingError, VectorStore } from "gatehouse-workers/bindings";
import { describe, expect, it } from "vitest";
import { VectorizeStandIn } from "./stand-ins";

describe("VectorStore", () => {
  it("exposes the raw binding", () => {
    const index = new VectorizeStandIn(3);
    expect(new VectorStore(index).raw).toBe(index);
  });

  it("inserts, upserts, queries and deletes by id", async () => {
    const index = new VectorizeStandIn(3);
    const store = new VectorStore(index);
    expect(
      await store.insert([
        { id: "x", values: [1, 0, 0], metadata: { title: "X" } },
        { id: "y", values: [0, 1, 0] },
        { id: "z", values: [0, 0, 1] },
      ]),
    ).toEqual({ mutationId: "mutation-1" });

    const near = await store.query([0.9, 0.1, 0], { topK: 2, returnMetadata: true });
    expect(near.matches.map((m) => m.id)).toEqual(["x", "y"]);
    expect(near.matches[0]?.metadata).toEqual({ title: "X" });
    expect(near.count).toBe(2);

    await store.upsert([{ id: "y", values: [1, 0, 0.1] }]);
    expect((await store.query([1, 0, 0], { topK: 1 })).matches[0]?.id).toBe("x");
    expect((await store.query([0, 0, 1], { topK: 3 })).matches.map((m) => m.id)).toEqual(["z", "y", "x"]);

    expect(await store.deleteByIds(["x", "z"])).toEqual({ mutationId: "mutation-3" });
    expect((await store.query([1, 0, 0])).matches.map((m) => m.id)).toEqual(["y"]);
    expect(await index.getByIds(["x", "y"])).toHaveLength(1);
  });

  it("lets the index's own errors through", async () => {
    const store = new VectorStore(new VectorizeStandIn(3));
    await store.insert([{ id: "x", values: [1, 0, 0] }]);
    await expect(store.insert([{ id: "x", values: [0, 1, 0] }])).rejects.toThrow(/exists/);
    await expect(store.query([1, 0])).rejects.toThrow(/dimensions/);
  });

  it("checks vectors before they leave the Worker", async () => {
    const index = new VectorizeStandIn(2);
    const store = new VectorStore(index);
    const cases: Promise<unknown>[] = [
      store.insert([{ id: "", values: [1, 2] }]),
      store.upsert([{ id: "a", values: [1, Number.NaN] }]),
      store.upsert([{ id: "a", values: [] }]),
      store.upsert([
        { id: "a", values: [1, 2] },
        { id: "b", values: [1, 2, 3] },
      ]),
      store.query([Number.POSITIVE_INFINITY, 1]),
      store.deleteByIds([""]),
    ];
    for (const promise of cases) {
      const err = await promise.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BindingError);
      expect((err as BindingError).code).toBe("invalid_argument");
    }
    expect((await index.describe()).vectorCount).toBe(0);
  });
});
