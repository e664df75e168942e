/**
 * @module
 * Fixed-window arithmetic, in one place so the Durable Object, the KV
 * limiter, the fake and the headers agree to the millisecond. Pure: the
 * caller passes `now`; nothing here reads a clock.
 */

export interface FixedWindow {
  /** Start of the window containing `now`, ms since the epoch. */
  start: number;
  /** End of that window (exclusive), ms since the epoch. */
  resetAt: number;
  /** Index of the window since the epoch: `start / windowMs`. */
  index: number;
}

/** The fixed window of `windowSeconds` that contains `now` (ms). Windows align to the epoch. */
export function fixedWindow(now: number, windowSeconds: number): FixedWindow {
  const windowMs = windowSeconds * 1000;
  const index = Math.floor(now / windowMs);
  const start = index * windowMs;
  return { start, resetAt: start + windowMs, index };
}

/** Whole seconds from `now` until `resetAt`, rounded up, at least 1: the `Retry-After` value. */
export function retryAfterSeconds(resetAt: number, now: number): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}

/** Whole seconds until `resetAt`, rounded up, never negative: the `t` of the `RateLimit` header. */
export function secondsUntil(resetAt: number, now: number): number {
  return Math.max(0, Math.ceil((resetAt - now) / 1000));
}
