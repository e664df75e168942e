/**
 * @module
 * `RateLimiterDO`: the Durable Object behind `DORateLimiter`, one instance
 * per limited key (`DORateLimiter` names it by key), with a counter per key
 * inside it too, so a direct `POST /check` with several keys never mixes
 * them. `check` (RPC) counts atomically: the SQLite API is
 * synchronous and nothing awaits between read and write, so concurrent
 * checks never overshoot. `fetch` is a thin JSON wrapper (POST /check) that
 * answers bad input with 4xx JSON, never a 500. An alarm drops finished windows.
 */
import { DurableObject } from "cloudflare:workers";
import { errorResponse, jsonError } from "../../client-sdk/core/errors";
import {
  MAX_CHECK_BODY_BYTES,
  type RateCheckBatchCall,
  type RateCheckBatchResult,
  type RateCheckCall,
  type RateCheckResponse,
  type RateCheckResult,
  validateRateCheck,
  validateRateCheckBatch,
} from "../../client-sdk/rate-limit/protocol";
import { fixedWindow, retryAfterSeconds } from "../../client-sdk/rate-limit/window";
import { objectNow } from "../clock";
import {
  CREATE_RATE_COUNTS,
  DELETE_FINISHED,
  DROP_LEGACY,
  NEXT_RESET,
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
    // JSON keeps keys with any characters apart from the numbers.
    const id = JSON.stringify([key, windowMs, limit]);
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
      this.#schemaReady = true;
    }
    return sql;
  }
}

function tooLarge(): Response {
  return jsonError(400, "body_too_large", `Body must be at most ${MAX_CHECK_BODY_BYTES} bytes`);
}
