/**
 * @module
 * `RateLimiterDO`: the Durable Object behind `DORateLimiter`, one instance
 * per limited key (`DORateLimiter` names it by key), with a counter per key
 * inside it too, so a direct `POST /check` with several keys never mixes
 * them. `check` (RPC) counts atomically: the SQLite API is
 * synchronous and nothing awaits between read and write, so concurrent
 * checks never overshoot. `lease` debits a slice of a hot key's window at
 * once for an isolate to admit from itself, and `release` credits back what
 * it did not use, once per lease and in the same window only, so admissions
 * by the object plus admissions from leases never exceed `limit`. `fetch` is a
 * thin JSON wrapper (POST /check) that answers bad input with 4xx JSON, never
 * a 500. An alarm drops finished windows and their leases.
 */
import { DurableObject } from "cloudflare:workers";
import { errorResponse, jsonError } from "../../client-sdk/core/errors";
import {
  LEASE_TTL_MS,
  MAX_CHECK_BODY_BYTES,
  type RateCheckBatchCall,
  type RateCheckBatchResult,
  type RateCheckCall,
  type RateCheckResponse,
  type RateCheckResult,
  type RateLeaseCall,
  type RateLeaseResult,
  type RateReleaseCall,
  type RateReleaseResult,
  validateRateCheck,
  validateRateCheckBatch,
  validateRateLease,
  validateRateRelease,
} from "../../client-sdk/rate-limit/protocol";
import { fixedWindow, retryAfterSeconds } from "../../client-sdk/rate-limit/window";
import { objectNow } from "../clock";
import {
  CREATE_RATE_COUNTS,
  CREATE_RATE_LEASES,
  DELETE_FINISHED,
  DELETE_FINISHED_LEASES,
  DROP_LEGACY,
  INSERT_LEASE,
  type LeaseRow,
  MARK_RETURNED,
  NEXT_RESET,
  SELECT_LEASE,
  SELECT_WINDOW,
  UPSERT_WINDOW,
  type WindowRow,
} from "./schema";

interface WindowState {
  start: number;
  count: number;
  windowMs: number;
}

/**
 * Export it from the host worker and bind it with a `new_sqlite_classes`
 * migration (README, "Rate limiting: exporting RateLimiterDO from a host worker").
 */
export class RateLimiterDO<Env = unknown> extends DurableObject<Env> {
  /** The spec constructs it as `new RateLimiterDO(state)`: the object needs no environment. */
  constructor(state: DurableObjectState, env?: Env) {
    super(state, env ?? ({} as Env));
  }

  /** Write-through cache of `rate_counts`, keyed by (key, window, limit); rebuilt from SQLite after eviction. */
  readonly #windows = new Map<string, WindowState>();
  #schemaReady = false;
  /** The alarm this instance set; undefined after (re)construction, null when none is needed. */
  #alarmAt: number | null | undefined = undefined;

  /**
   * Counts one request for `key` under `limit` per `window` seconds. `now`
   * (ms) is the caller's clock when it injects one; otherwise the object's.
   * Throws a `RangeError` on invalid input.
   */
  check(call: RateCheckCall): RateCheckResult {
    const valid = validateRateCheck(call, { allowNow: true });
    if (!valid.ok) throw new RangeError(`${valid.reason}: ${valid.message}`);
    const { key, limit, window, now = objectNow() } = valid.value;
    const { admitted, remaining, resetAt, retryAfter } = this.#count(key, limit, window, now, 1);
    return admitted === 1 ? { allowed: true, remaining, resetAt } : { allowed: false, remaining, retryAfter, resetAt };
  }

  /**
   * Counts `count` requests for `key` at once, one after another: the first
   * ones are admitted while the window has room, the rest refused. One storage
   * write for the whole batch. This is what `DORateLimiter` sends when checks
   * of one key were concurrent in an isolate. Throws a `RangeError` on invalid input.
   */
  checkBatch(call: RateCheckBatchCall): RateCheckBatchResult {
    const valid = validateRateCheckBatch(call);
    if (!valid.ok) throw new RangeError(`${valid.reason}: ${valid.message}`);
    const { key, limit, window, now = objectNow(), count } = valid.value;
    return this.#count(key, limit, window, now, count);
  }

  /**
   * Leases up to `want` admissions of the current window to the caller, which
   * admits them itself: debited here at once (in the same write as the lease's
   * row), so they count against `limit` whether or not the caller ever uses
   * them. The caller may admit from the lease for `ttlMs` after it sent the
   * call, never past the window; what it does not use it gives back with
   * `release`. A grant of 0 is a refusal and records no lease. Throws a
   * `RangeError` on invalid input.
   */
  lease(call: RateLeaseCall): RateLeaseResult {
    const valid = validateRateLease(call);
    if (!valid.ok) throw new RangeError(`${valid.reason}: ${valid.message}`);
    const { key, limit, window, now = objectNow(), want } = valid.value;
    const { admitted: granted, remaining, resetAt, retryAfter } = this.#count(key, limit, window, now, want);
    const start = resetAt - window * 1000; // the window this lease was taken from
    const answer: RateLeaseResult =
      retryAfter === undefined ? { granted, remaining, resetAt } : { granted, remaining, retryAfter, resetAt };
    if (granted === 0) return answer;
    const expiresAt = Math.min(resetAt, now + LEASE_TTL_MS);
    const leaseId = crypto.randomUUID();
    this.#sql().exec(INSERT_LEASE, key, window * 1000, limit, leaseId, start, granted, expiresAt);
    return { ...answer, leaseId, ttlMs: Math.max(0, expiresAt - now) };
  }

  /**
   * Credits back `unused` admissions of a lease: at most what it granted, only
   * while its window is still the current one, and only the first time
   * (a retried return answers the same `credited` and changes nothing). An
   * unknown or finished lease credits 0. Throws a `RangeError` on invalid input.
   */
  release(call: RateReleaseCall): RateReleaseResult {
    const valid = validateRateRelease(call);
    if (!valid.ok) throw new RangeError(`${valid.reason}: ${valid.message}`);
    const { key, limit, window, now = objectNow(), leaseId, unused } = valid.value;
    const windowMs = window * 1000;
    const sql = this.#sql();
    const id = windowId(key, windowMs, limit);
    const state = this.#windows.get(id) ?? this.#load(key, windowMs, limit);
    const current = fixedWindow(now, window);
    const row = sql.exec<LeaseRow>(SELECT_LEASE, key, windowMs, limit, leaseId).toArray()[0];
    let credited = row?.returned ?? 0;
    if (row && row.returned === null) {
      // Only into the window the lease was taken from, while it is still the object's newest.
      if (state && state.start === row.start_ms && row.start_ms >= current.start) {
        credited = Math.min(unused, row.granted, state.count);
        state.count -= credited;
        sql.exec(UPSERT_WINDOW, key, windowMs, limit, state.start, state.count);
        this.#windows.set(id, state);
      } else {
        credited = 0;
      }
      sql.exec(MARK_RETURNED, credited, key, windowMs, limit, leaseId);
    }
    if (state && state.start >= current.start) {
      return { credited, remaining: limit - state.count, resetAt: state.start + windowMs };
    }
    return { credited, remaining: limit, resetAt: current.resetAt };
  }

  /** POST /check with `{ key, limit, window }` → `{ allowed, remaining, retryAfter? }`. */
  override async fetch(request: Request): Promise<Response> {
    try {
      const path = new URL(request.url).pathname;
      if (path !== "/check") return jsonError(404, "not_found", `No route for ${request.method} ${path}`);
      if (request.method !== "POST") {
        return jsonError(405, "method_not_allowed", "Use POST /check", { Allow: "POST" });
      }
      const declared = Number(request.headers.get("Content-Length") ?? 0);
      if (declared > MAX_CHECK_BODY_BYTES) return tooLarge();
      const text = await request.text();
      if (new TextEncoder().encode(text).byteLength > MAX_CHECK_BODY_BYTES) return tooLarge();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return jsonError(400, "invalid_json", "Body must be JSON { key, limit, window }");
      }
      const valid = validateRateCheck(body);
      if (!valid.ok) return jsonError(400, valid.reason, valid.message);
      const { allowed, remaining, retryAfter } = this.check(valid.value);
      const answer: RateCheckResponse =
        retryAfter === undefined ? { allowed, remaining } : { allowed, remaining, retryAfter };
      return Response.json(answer, { headers: { "Cache-Control": "no-store" } });
    } catch (err) {
      return errorResponse(err);
    }
  }

  /** Drops every finished window; when none is left, deletes the object's storage entirely. */
  override async alarm(): Promise<void> {
    const sql = this.#sql();
    const now = objectNow();
    sql.exec(DELETE_FINISHED, now);
    sql.exec(DELETE_FINISHED_LEASES, now);
    for (const [id, state] of this.#windows) {
      if (state.start + state.windowMs <= now) this.#windows.delete(id);
    }
    const next = sql.exec<{ next: number | null }>(NEXT_RESET).one().next;
    if (next === null) {
      this.#alarmAt = null;
      this.#windows.clear();
      this.#schemaReady = false;
      await this.ctx.storage.deleteAll();
    } else {
      this.#alarmAt = next;
      await this.ctx.storage.setAlarm(next);
    }
  }

  #count(key: string, limit: number, window: number, now: number, count: number): RateCheckBatchResult {
    const windowMs = window * 1000;
    const id = windowId(key, windowMs, limit);
    const current = fixedWindow(now, window);
    let state = this.#windows.get(id) ?? this.#load(key, windowMs, limit);
    // A caller whose clock lags keeps counting in the newest window the object has seen.
    if (!state || state.start < current.start) state = { start: current.start, count: 0, windowMs };
    const resetAt = state.start + windowMs;
    const admitted = Math.min(count, Math.max(0, limit - state.count));
    if (admitted > 0) {
      state.count += admitted;
      this.#sql().exec(UPSERT_WINDOW, key, windowMs, limit, state.start, state.count);
      this.#windows.set(id, state);
      if (state.count === admitted) this.#scheduleAlarm(resetAt);
    }
    const remaining = limit - state.count;
    // A refusal writes nothing, so a batch of refusals also waits for no storage commit.
    if (admitted === count) return { admitted, remaining, resetAt };
    return { admitted, remaining, retryAfter: Math.min(window, retryAfterSeconds(resetAt, now)), resetAt };
  }

  #load(key: string, windowMs: number, limit: number): WindowState | undefined {
    const row = this.#sql().exec<WindowRow>(SELECT_WINDOW, key, windowMs, limit).toArray()[0];
    return row ? { start: row.start_ms, count: row.count, windowMs } : undefined;
  }

  #scheduleAlarm(at: number): void {
    if (typeof this.#alarmAt === "number" && this.#alarmAt <= at) return;
    this.#alarmAt = at;
    // Not awaited: the output gate holds the answer until the alarm is stored.
    void this.ctx.storage.setAlarm(at);
  }

  #sql(): SqlStorage {
    const sql = this.ctx.storage.sql;
    if (!this.#schemaReady) {
      sql.exec(DROP_LEGACY);
      sql.exec(CREATE_RATE_COUNTS);
      sql.exec(CREATE_RATE_LEASES);
      this.#schemaReady = true;
    }
    return sql;
  }
}

/** The cache key of one counter. JSON keeps keys with any characters apart from the numbers. */
function windowId(key: string, windowMs: number, limit: number): string {
  return JSON.stringify([key, windowMs, limit]);
}

function tooLarge(): Response {
  return jsonError(400, "body_too_large", `Body must be at most ${MAX_CHECK_BODY_BYTES} bytes`);
}
