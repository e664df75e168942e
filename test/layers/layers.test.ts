/**
 * Issue 15: the house has no circles. Layers are client-sdk (ground) → durable-objects → workers:
 * nothing imports upward (type-only imports included: a consumer type-checking the client SDK must
 * not type-check the auth worker), and no files import each other in a cycle.
 */
import { describe, expect, it } from "vitest";
import { cycles, importGraph, LAYERS, layerOf } from "./imports.ts";

describe("the source layers", () => {
  const graph = importGraph();

  it("reads the whole tree", () => {
    expect(graph.size).toBeGreaterThan(100);
    for (const layer of LAYERS) expect([...graph.keys()].some((f) => layerOf(f) === layer)).toBe(true);
  });

  it("nothing imports upward", () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const from = LAYERS.indexOf(layerOf(file)!);
      for (const target of targets) {
        if (LAYERS.indexOf(layerOf(target)!) > from) upward.push(`${file} → ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("no import cycles", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("the checker itself finds a cycle and an upward edge", () => {
    const fake = new Map([
      ["client-sdk/a.ts", ["client-sdk/b.ts"]],
      ["client-sdk/b.ts", ["client-sdk/a.ts", "workers/c.ts"]],
      ["workers/c.ts", []],
    ]);
    expect(cycles(fake)).toEqual([["client-sdk/a.ts", "client-sdk/b.ts"]]);
  });
});
