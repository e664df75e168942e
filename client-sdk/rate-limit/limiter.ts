/**
 * @module
 * `RateLimiter`: what both limiters share. The order of a check is fixed:
 * the global fake (if active), then the isolate's blocked-key memory, then
 * the store (`consult`), under a timeout and the store-failure policy. It is
 * the middleware (`handle`) and Hono middleware (`hono()`); it never lets a
 * store failure become a 500, and never logs the key.
 */
import type { MiddlewareHandler } from "hono";
import { withDeadline } from "../core/deadline";
import { type Middleware, type Next, toHono } from "../core/middleware";
import { type RateLimiterOptions, type ResolvedOptions, resolveOptions, type StoreErrorPolicy } from "./config";
import { RateLimitError } from "./errors";
import { activeRateLimiterFake } from "./fake";
import {
  type PolicyInfo,
  rateLimitedResponse,
  STORE_FAILURE_RETRY_AFTER,
  storeUnavailableResponse,
  withRateLimitHeaders,
} from "./headers";
import { storeKey, UNKNOWN_KEY } from "./key";
import { BlockedKeys } from "./memory";
import type { RateCheckResult } from "./protocol";
import { fixedWindow, retryAfterSeconds } from "./window";

/** Who decided: the store, the isolate's blocked-key memory, the global fake, or the store-failure policy. */
export type RateLimitSource = "store" | "memory" | "fake" | "store_error";

/** The outcome of one check: the spec's rate-check response, the window end, and who decided. */
export interface RateLimitDecision extends RateCheckResult {
  source: RateLimitSource;
}

export abstract class RateLimiter implements Middleware {
  readonly limit: number;
  readonly window: number;
  readonly onStoreError: StoreErrorPolicy;
  protected readonly options: ResolvedOptions;
  /**
   * The policy as a scope of isolate state (`prefix|limit|window`): the built-in limiters share
   * their blocked-key memory and per-key state per binding and scope, so two policies on one
   * binding never see each other's counts.
   */
  protected readonly scope: string;
  readonly #policy: PolicyInfo;

  constructor(options: RateLimiterOptions) {
    this.options = resolveOptions(options);
    this.limit = this.options.limit;
    this.window = this.options.window;
    this.onStoreError = this.options.onStoreError;
    this.scope = `${this.options.prefix}|${this.limit}|${this.window}`;
    this.#policy = { name: this.options.policyName, limit: this.limit, window: this.window };
  }

  /** A short name for logs: `"kv"` or `"durable-object"`. */
  protected abstract readonly storeName: string;

  readonly #ownMemory = new BlockedKeys();

  /**
   * The memory of denied keys. By default this limiter's own; the built-in
   * limiters share one per binding and policy across instances in an isolate.
   */
  protected blockedKeys(): BlockedKeys {
    return this.#ownMemory;
  }

  /** Asks the store to count one request for `key` (already hashed if long) at `now`. */
  protected abstract consult(key: string, now: number): Promise<RateCheckResult>;

  /**
   * Counts one request for `key` and says whether it is admitted. Never
   * throws for a store failure: the `onStoreError` policy decides instead.
   *
   * @example
   * ```ts
   * const { allowed, retryAfter } = await limiter.check(`login:${email}`);
   * ```
   */
  async check(key: string): Promise<RateLimitDecision> {
    return this.#decide(key, this.options.clock());
  }

  /** The middleware interface: 429 over the limit, draft headers on every answer. */
  async handle(request: Request, next: Next): Promise<Response> {
    const now = this.options.clock();
    const key = this.options.keyExtractor(request) || UNKNOWN_KEY;
    const decision = await this.#decide(key, now);
    if (!decision.allowed) {
      return decision.source === "store_error"
        ? storeUnavailableResponse(this.#policy, decision.resetAt, now)
        : rateLimitedResponse(this.#policy, decision.resetAt, now);
    }
    return withRateLimitHeaders(await next(), this.#policy, decision, now);
  }

  /**
   * The limiter as Hono middleware.
   *
   * @example
   * ```ts
   * app.use("/api/*", new DORateLimiter(new StatefulObjectClient(env.RATE_LIMITER), { limit: 100, window: 60 }).hono());
   * ```
   */
  hono(): MiddlewareHandler {
    return toHono(this);
  }

  async #decide(key: string, now: number): Promise<RateLimitDecision> {
    const fake = activeRateLimiterFake();
    if (fake) return this.#fakeDecision(fake.check(key).limited, now);
    const id = await storeKey(key);
    const memory = this.blockedKeys();
    const until = memory.blockedUntil(id, now);
    if (until !== undefined) {
      return {
        allowed: false,
        remaining: 0,
        retryAfter: retryAfterSeconds(until, now),
        resetAt: until,
        source: "memory",
      };
    }
    let result: RateCheckResult;
    try {
      result = await this.withTimeout(this.consult(id, now));
    } catch (err) {
      return this.#storeFailed(err, now);
    }
    if (!result.allowed) memory.block(id, result.resetAt, now);
    return { ...result, source: "store" };
  }

  #fakeDecision(limited: boolean, now: number): RateLimitDecision {
    const { resetAt } = fixedWindow(now, this.window);
    return limited
      ? { allowed: false, remaining: 0, retryAfter: retryAfterSeconds(resetAt, now), resetAt, source: "fake" }
      : { allowed: true, remaining: this.limit, resetAt, source: "fake" };
  }

  #storeFailed(err: unknown, now: number): RateLimitDecision {
    const error =
      err instanceof RateLimitError
        ? err
        : new RateLimitError("store_error", { message: `${this.storeName} store failed`, cause: err });
    this.options.logger(
      `gatehouse: rate limiter ${this.storeName} store failed (${error.code}); policy ${this.onStoreError}`,
      error,
    );
    const { resetAt } = fixedWindow(now, this.window);
    return this.onStoreError === "allow"
      ? { allowed: true, remaining: 0, resetAt, source: "store_error" }
      : { allowed: false, remaining: 0, retryAfter: STORE_FAILURE_RETRY_AFTER, resetAt, source: "store_error" };
  }

  /** `promise`, or a `store_timeout` error once `timeoutMs` has passed. */
  protected withTimeout<T>(promise: Promise<T>): Promise<T> {
    const ms = this.options.timeoutMs;
    return withDeadline(
      promise,
      ms,
      () => new RateLimitError("store_timeout", { message: `${this.storeName} store timed out after ${ms} ms` }),
    );
  }
}
