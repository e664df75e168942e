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
