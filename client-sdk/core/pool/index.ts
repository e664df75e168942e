/**
 * @module
 * `inPool(items, width, run)`: runs `run` over `items` with at most `width`
 * calls in flight, starting the next as soon as one ends (a slow call never
 * holds up a whole round), and settles each one like `Promise.allSettled`, in
 * the items' order. It never throws for a failed call.
 */
export async function inPool<T, R>(
  items: readonly T[],
  width: number,
  run: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  if (!Number.isInteger(width) || width < 1) throw new RangeError("width must be a positive integer");
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: "fulfilled", value: await run(items[index]!, index) };
      } catch (reason) {
        results[index] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return results;
}
