/**
 * @module
 * The rate-check protocol shared by `RateLimiterDO` and `DORateLimiter`:
 * request and result shapes (checks, batches, and the leases of a hot key's
 * budget), bounds, and the pure validators of a `/check` body and of the RPC
 * arguments. Validators return a tagged result and must never throw.
 */
import { DEFAULT_MAX_BATCH } from "../core/coalesce";

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

/**
 * The RPC form of `count` checks of one key at once (concurrent checks of an
 * isolate, coalesced): the object decides them one after another, in order.
 */
export interface RateCheckBatchCall extends RateCheckCall {
  /** How many checks, 1 to `MAX_BATCH_COUNT`. */
  count: number;
}

/**
 * The answer to a batch: the first `admitted` checks of the batch were
 * admitted (the i-th of them with `remaining + admitted - 1 - i` left), the
 * rest refused with `retryAfter`; all share `resetAt`.
 */
export interface RateCheckBatchResult {
  admitted: number;
  /** Left in the window after the whole batch. */
  remaining: number;
  resetAt: number;
  /** Present when some checks of the batch were refused. */
  retryAfter?: number;
}

/** Most checks one batch call asks for (the coalescer's default batch). */
export const MAX_BATCH_COUNT = DEFAULT_MAX_BATCH;

/** The `count` results a batch answer stands for, in the order the checks were sent. */
export function expandBatch(result: RateCheckBatchResult, count: number): RateCheckResult[] {
  const { admitted, remaining, resetAt, retryAfter } = result;
  return Array.from({ length: count }, (_, i): RateCheckResult => {
    if (i < admitted) return { allowed: true, remaining: remaining + admitted - 1 - i, resetAt };
    return { allowed: false, remaining: 0, retryAfter: retryAfter ?? 1, resetAt };
  });
}

/** True when `value` has the shape of a batch answer for `count` checks. */
export function isBatchResult(value: unknown, count: number): value is RateCheckBatchResult {
  if (typeof value !== "object" || value === null) return false;
  const { admitted, remaining, resetAt, retryAfter } = value as Record<string, unknown>;
  return isAnswerTo(count, admitted, remaining, resetAt, retryAfter);
}

/**
 * The part every counting answer shares (a batch's, a lease's): `taken` of `asked` admissions, what
 * the window has left, when it resets, and a retry delay exactly when not all were taken.
 */
function isAnswerTo(asked: number, taken: unknown, remaining: unknown, resetAt: unknown, retryAfter: unknown): boolean {
  return (
    isIntegerIn(taken, 0, asked) &&
    isIntegerIn(remaining, 0, MAX_LIMIT) &&
    isIntegerIn(resetAt, 0, Number.MAX_SAFE_INTEGER) &&
    (taken === asked
      ? retryAfter === undefined || isIntegerIn(retryAfter, 1, MAX_WINDOW_SECONDS)
      : isIntegerIn(retryAfter, 1, MAX_WINDOW_SECONDS))
  );
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
  | "invalid_now"
  | "invalid_count"
  | "invalid_want"
  | "invalid_lease_id"
  | "invalid_unused";

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

/** Validates an RPC batch argument: a check plus `count`. */
export function validateRateCheckBatch(input: unknown): Validated<RateCheckBatchCall> {
  return checkPlusInteger(input, "count", 1, MAX_BATCH_COUNT);
}

/**
 * The RPC arguments that are a check plus one integer (`count` of a batch, `want` of a lease):
 * the check's own validation, then `field` within [min, max], refused as `invalid_<field>`.
 */
function checkPlusInteger<F extends "count" | "want">(
  input: unknown,
  field: F,
  min: number,
  max: number,
): Validated<RateCheckCall & { [K in F]: number }> {
  const check = validateRateCheck(input, { allowNow: true });
  if (!check.ok) return check;
  const value = (input as Record<string, unknown>)[field];
  if (!isIntegerIn(value, min, max)) {
    return { ok: false, reason: `invalid_${field}`, message: `${field} must be an integer from ${min} to ${max}` };
  }
  return { ok: true, value: { ...check.value, [field]: value } as RateCheckCall & { [K in F]: number } };
}

/**
 * A lease of a hot key's budget (RPC): the object debits up to `want` admissions from the current
 * window at once, as if that many checks had been admitted, and the caller admits them itself.
 */
export interface RateLeaseCall extends RateCheckCall {
  /** Admissions asked for, 1 to `MAX_LIMIT`. */
  want: number;
}

/** The answer to a lease. `leaseId` and `ttlMs` are present when `granted` > 0. */
export interface RateLeaseResult {
  /** Admissions debited for the caller, 0 to `want`. */
  granted: number;
  /** Left in the window after the grant. */
  remaining: number;
  resetAt: number;
  /** Present when fewer than `want` were granted. */
  retryAfter?: number;
  /** Names the lease for `release`. */
  leaseId?: string;
  /**
   * How long after it sent the call the caller may admit from the lease: at most `LEASE_TTL_MS`,
   * never past `resetAt`. Measured from the caller's own send time, so its clock never over-reaches.
   */
  ttlMs?: number;
}

/** Gives back the `unused` admissions of a lease (RPC). Credited once per lease, in its own window only. */
export interface RateReleaseCall extends RateCheckCall {
  leaseId: string;
  /** Admissions of the lease the caller never made; the object credits at most what it granted. */
  unused: number;
}

export interface RateReleaseResult {
  /** Admissions credited back by the first return of this lease (a retried return credits nothing more). */
  credited: number;
  remaining: number;
  resetAt: number;
}

/** Longest a lease may be used: 10 s, and never past the end of its window. */
export const LEASE_TTL_MS = 10_000;
/** Longest accepted lease id (the object makes UUIDs). */
export const MAX_LEASE_ID_LENGTH = 64;

/** Validates an RPC lease argument: a check plus `want`. */
export function validateRateLease(input: unknown): Validated<RateLeaseCall> {
  return checkPlusInteger(input, "want", 1, MAX_LIMIT);
}

/** Validates an RPC release argument: a check plus `leaseId` and `unused`. */
export function validateRateRelease(input: unknown): Validated<RateReleaseCall> {
  const check = validateRateCheck(input, { allowNow: true });
  if (!check.ok) return check;
  const { leaseId, unused } = input as Record<string, unknown>;
  if (typeof leaseId !== "string" || leaseId.length === 0 || leaseId.length > MAX_LEASE_ID_LENGTH) {
    return {
      ok: false,
      reason: "invalid_lease_id",
      message: `leaseId must be a string of 1 to ${MAX_LEASE_ID_LENGTH} characters`,
    };
  }
  if (!isIntegerIn(unused, 0, MAX_LIMIT)) {
    return { ok: false, reason: "invalid_unused", message: `unused must be an integer from 0 to ${MAX_LIMIT}` };
  }
  return { ok: true, value: { ...check.value, leaseId, unused } };
}

/** True when `value` has the shape of a lease answer for `want` admissions. */
export function isLeaseResult(value: unknown, want: number): value is RateLeaseResult {
  if (typeof value !== "object" || value === null) return false;
  const { granted, remaining, resetAt, retryAfter, leaseId, ttlMs } = value as Record<string, unknown>;
  return (
    isAnswerTo(want, granted, remaining, resetAt, retryAfter) &&
    (granted === 0 ||
      (typeof leaseId === "string" &&
        leaseId.length > 0 &&
        leaseId.length <= MAX_LEASE_ID_LENGTH &&
        isIntegerIn(ttlMs, 0, LEASE_TTL_MS)))
  );
}
