/**
 * @module
 * What the benches' raw floors share: one invocation's KV writes, `width` in flight, never more
 * than production allows in one invocation (miniflare does not enforce it, so the floor does), and
 * a failed write fails the floor.
 */
import { inPool } from "../client-sdk/core/pool";

/** Production's limit: KV operations one invocation may make. */
export const KV_OPS_PER_INVOCATION = 1_000;

export async function floorWrites<T>(
  items: readonly T[],
  width: number,
  write: (item: T) => Promise<void>,
  /** KV operations the invocation already made (a floor's reads). */
  opsUsed = 0,
): Promise<number> {
  if (opsUsed + items.length > KV_OPS_PER_INVOCATION)
    throw new RangeError("more KV operations than one invocation may make");
  const results = await inPool(items, width, write);
  if (results.some((r) => r.status === "rejected")) throw new Error("a KV write of the floor failed");
  return items.length;
}

/**
 * One way to issue a floor's writes from Workers: `batch` writes per invocation (at most
 * `KV_OPS_PER_INVOCATION`), `width` of them in flight in each, `invocations` invocations at once.
 */
export interface FloorShape {
  batch: number;
  width: number;
  invocations: number;
}

/**
 * The shapes a fastest floor tries for `count` writes: batches of 100, 500 and 1,000 (what fits
 * in `count`), 25, 100 or all of a batch in flight, one invocation at a time or four at once.
 */
export function floorShapes(count: number): FloorShape[] {
  const shapes = new Map<string, FloorShape>();
  for (const b of [100, 500, KV_OPS_PER_INVOCATION]) {
    const batch = Math.min(b, count);
    for (const w of [25, 100, batch]) {
      const width = Math.min(w, batch);
      for (const i of [1, 4]) {
        const invocations = Math.min(i, Math.ceil(count / batch));
        shapes.set(`${batch}/${width}/${invocations}`, { batch, width, invocations });
      }
    }
  }
  return [...shapes.values()];
}

/** A shape in words, for a goal's note and the log. */
export function describeShape(shape: FloorShape): string {
  const at = shape.invocations === 1 ? "one invocation at a time" : `${shape.invocations} invocations at once`;
  return `${shape.batch} writes per invocation, ${shape.width} in flight, ${at}`;
}
