/**
 * @module
 * `DORateLimiter`: the exact fixed-window limiter. Each key is counted by
 * its own `RateLimiterDO` instance, reached through `StatefulObjectClient.get`
 * (never one global object); the object decides atomically, so concurrent
 * requests for a key admit exactly `limit`. It must never count a key itself,
 * and never share a promise or a stub between requests.
 */
import type { StatefulObjectClient } from "../bindings/durable-object";
import type { RateLimiterOptions } from "./config";
import { RateLimiter } from "./limiter";
import { type BlockedKeys, blockedKeysFor } from "./memory";
import type { RateCheckCall, RateCheckResult } from "./protocol";

/** The RPC surface of `RateLimiterDO` this limiter uses. */
export interface RateCheckStub {
  check(call: RateCheckCall): Promise<RateCheckResult>;
}

/**
 * @example
 * ```ts
 * // wrangler.toml binds RATE_LIMITER to RateLimiterDO (see README)
 * const limiter = new DORateLimiter(new StatefulObjectClient(env.RATE_LIMITER), { limit: 100, window: 60 });
 * app.use(limiter);                 // Application middleware
 * hono.use("/api/*", limiter.hono()); // or Hono middleware
 * ```
 */
export class DORateLimiter extends RateLimiter {
  protected readonly storeName = "durable-object";
  readonly #client: StatefulObjectClient<Rpc.DurableObjectBranded | undefined>;
  readonly #scope: string;

  constructor(doClient: StatefulObjectClient<Rpc.DurableObjectBranded | undefined>, config: RateLimiterOptions) {
    super(config);
    this.#client = doClient;
    this.#scope = `${this.options.prefix}|${this.limit}|${this.window}`;
  }

  /** The Durable Object name a key is counted under: `prefix + key`. */
  objectName(key: string): string {
    return `${this.options.prefix}${key}`;
  }

  protected override blockedKeys(): BlockedKeys {
    return blockedKeysFor(this.#client.raw, this.#scope);
  }

  protected async consult(key: string, now: number): Promise<RateCheckResult> {
    // A stub per check, made in the request that checks: Workers forbid I/O on behalf of another request.
    const stub = this.#client.get(this.objectName(key)) as unknown as RateCheckStub;
    const call: RateCheckCall = { key, limit: this.limit, window: this.window };
    // Without an injected clock the object's own clock decides: one clock per key, so no skew.
    if (this.options.clockInjected) call.now = now;
    const { allowed, remaining, retryAfter, resetAt } = await stub.check(call);
    return retryAfter === undefined ? { allowed, remaining, resetAt } : { allowed, remaining, retryAfter, resetAt };
  }
}
