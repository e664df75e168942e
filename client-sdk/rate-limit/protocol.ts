/**
 * @module
 * The rate-check protocol shared by `RateLimiterDO` and `DORateLimiter`:
 * request and result shapes, bounds, and the pure validator of a `/check`
 * body. The validator returns a tagged result and must never throw.
 */

/** Spec: the rate-check request sent to `RateLimiterDO`. */
export interface RateCheckRequest {
  key: string;
  /** Requests admitted per window, a positive integer. */
  limit: number;
  /** Window length in seconds, a positive integer. */
  window: number;
}

/** The RPC form: `now` (ms since the epoch) lets a caller with an injected clock decide the window. */
export interface RateCheckCall extends RateCheckRequest {
  now?: number;
}

/** Spec: the rate-check response (the JSON body of POST `/check`). */
export interface RateCheckResponse {
  allowed: boolean;
  remaining: number;
  /** Whole seconds until the window ends, at least 1; only when `allowed` is false. */
  retryAfter?: number;
}

/** What the RPC method and every limiter's `check` return: the response plus the window end. */
export interface RateCheckResult extends RateCheckResponse {
  /** When the current window ends, ms since the epoch. */
  resetAt: number;
}

/** Longest accepted key, in UTF-16 code units. Limiters hash longer keys first. */
export const MAX_KEY_LENGTH = 512;
/** Largest accepted `limit`. */
export const MAX_LIMIT = 10_000_000;
/** Longest accepted `window`: 366 days, in seconds. */
export const MAX_WINDOW_SECONDS = 366 * 24 * 60 * 60;
/** Largest accepted `/check` body, in bytes. */
export const MAX_CHECK_BODY_BYTES = 4096;

export type RateCheckInvalidReason =
  | "invalid_body"
  | "invalid_key"
  | "invalid_limit"
  | "invalid_window"
  | "invalid_now";

export type Validated<T> = { ok: true; value: T } | { ok: false; reason: RateCheckInvalidReason; message: string };

/** True for an integer in `[min, max]`. */
export function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
}

/** Validates a parsed `/check` body (or an RPC argument). Extra fields are ignored. */
export function validateRateCheck(input: unknown, { allowNow = false } = {}): Validated<RateCheckCall> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { ok: false, reason: "invalid_body", message: "Body must be a JSON object { key, limit, window }" };
  }
  const { key, limit, window, now } = input as Record<string, unknown>;
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    return { ok: false, reason: "invalid_key", message: `key must be a string of 1 to ${MAX_KEY_LENGTH} characters` };
  }
  if (!isIntegerIn(limit, 1, MAX_LIMIT)) {
    return { ok: false, reason: "invalid_limit", message: `limit must be an integer from 1 to ${MAX_LIMIT}` };
  }
  if (!isIntegerIn(window, 1, MAX_WINDOW_SECONDS)) {
    return {
      ok: false,
      reason: "invalid_window",
      message: `window must be an integer number of seconds from 1 to ${MAX_WINDOW_SECONDS}`,
    };
  }
  if (allowNow && now !== undefined && !isIntegerIn(now, 0, Number.MAX_SAFE_INTEGER)) {
    return { ok: false, reason: "invalid_now", message: "now must be a non-negative integer of milliseconds" };
  }
  const value: RateCheckCall = { key, limit, window };
  if (allowNow && now !== undefined) value.now = now as number;
  return { ok: true, value };
}
