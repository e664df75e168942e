/**
 * @module
 * The clock of Gatehouse's Durable Objects: `Date.now` unless a test replaces it
 * with `setObjectClock`, so expiry, alarms and the spacing of KV writes can be
 * tested by advancing time instead of sleeping. It is module state of the
 * isolate, never reachable over RPC; production code never sets it.
 */
let current: () => number = Date.now;

/** Milliseconds since the epoch, by the objects' clock. */
export function objectNow(): number {
  return current();
}

/** Replaces the objects' clock (tests); `null` restores `Date.now`. */
export function setObjectClock(clock: (() => number) | null): void {
  current = clock ?? Date.now;
}
