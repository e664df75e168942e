/**
 * Issue 15: the house has no circles. Layers are client-sdk (ground) → durable-objects → workers:
 * nothing imports upward (type-only imports included: a consumer type-checking the client SDK must
 * not type-check the auth worker), and no files import each other in a cycle. Issue 28: inside a
 * layer the rooms (folders) have a declared order too (imports.ts ROOMS), and no arrow runs back up.
 */
import { describe, expect, it } from "vitest";
import { cycles, importGraph, LAYERS, layerOf, ROOMS, roomOf } from "./imports.ts";

/** Imports between rooms of one layer that run back up (see ROOMS), and files in no declared room. */
function upwardBetweenRooms(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    const room = roomOf(file);
    if (room === null) {
      found.push(`${file}: in no declared room`);
      continue;
    }
    const order = ROOMS[layerOf(file)!];
    for (const target of targets) {
      if (layerOf(target) !== layerOf(file)) continue;
      const to = roomOf(target);
      if (to !== null && order.indexOf(to) > order.indexOf(room)) found.push(`${file} → ${target}`);
    }
  }
  return found;
}

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

  it("inside a layer, no room imports a room declared above it", () => {
    expect(upwardBetweenRooms(graph)).toEqual([]);
  });

  it("every declared room exists", () => {
    for (const layer of LAYERS)
      for (const room of ROOMS[layer])
        expect(
          [...graph.keys()].some((f) => roomOf(f) === room),
          `${layer}/${room}`,
        ).toBe(true);
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

  it("the room check finds an arrow back up, a type-only one included, and a file in no room", () => {
    const fake = new Map([
      // core is the ground floor: core importing html (e.g. `import type`) runs back up
      ["client-sdk/core/errors/index.ts", ["client-sdk/html/escape.ts"]],
      ["client-sdk/html/escape.ts", ["client-sdk/core/errors/index.ts"]],
      ["workers/auth/middleware/csrf/index.ts", ["workers/auth/pages/index.ts", "workers/auth/routes/handlers.ts"]],
      ["workers/auth/attic/old.ts", []],
    ]);
    expect(upwardBetweenRooms(fake)).toEqual([
      "client-sdk/core/errors/index.ts → client-sdk/html/escape.ts",
      "workers/auth/middleware/csrf/index.ts → workers/auth/routes/handlers.ts",
      "workers/auth/attic/old.ts: in no declared room",
    ]);
  });
});
