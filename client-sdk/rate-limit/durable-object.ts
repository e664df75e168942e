/**
 * @module
 * `DORateLimiter`: the exact fixed-window limiter. Each key is counted by
 * its own `RateLimiterDO` instance, reached through `StatefulObjectClient.get`
 * (never one global object); the object decides atomically, so concurrent
 * requests for a key admit exactly `limit`. Concurrent checks of one key in an
 * isolate are coalesced (`Coalescer`): one call asks the object for N decisions,
 * which it takes in arrival order, so exactness is unchanged and a hot key costs
 * one round trip per batch instead of one per check. It must never count a key
 * itself, and never share a stub between requests: each batch is sent by one of
 * its own checks, from that check's request.
 */
import { Coalescer } from "../core/coalesce";
import { perBindingScope } from "../core/isolate-scope";
import type { RateLimiterOptions } from "./config";
import { RateLimiter } from "./limiter";
import { type BlockedKeys, blockedKeysFor } from "./memory";
import {
  expandBatch,
  isBatchResult,
  MAX_BATCH_COUNT,
  type RateCheckBatchCall,
  type RateCheckBatchResult,
  type RateCheckCall,
  type RateCheckResult,
} from "./protocol";
import { fixedWindow } from "./window";

/** The RPC surface of `RateLimiterDO` this limiter uses. */
export interface RateCheckStub {
  check(call: RateCheckCall): Promise<RateCheckResult>;
  checkBatch(call: RateCheckBatchCall): Promise<RateCheckBatchResult>;
}

/**
 * What `DORateLimiter` needs of its client: a `StatefulObjectClient` over the limiter's namespace,
 * whatever class that namespace is typed with (`DurableObjectNamespace`, or
 * `DurableObjectNamespace<RateLimiterDO>`). The client is invariant in that class, so a parameter
 * typed `StatefulObjectClient<Rpc.DurableObjectBranded | undefined>` refused both under TypeScript 5.
 */
export interface RateLimiterObjects {
  get(name: string): unknown;
  readonly raw: object;
}

/** One coalescer per binding object and policy, like the blocked-key memory: per isolate. */
const coalescerFor = /* @__PURE__ */ perBindingScope(
  () => new Coalescer<RateCheckResult>({ maxBatch: MAX_BATCH_COUNT }),
);

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
  readonly #client: RateLimiterObjects;

  constructor(doClient: RateLimiterObjects, config: RateLimiterOptions) {
    super(config);
    this.#client = doClient;
  }

  /** The Durable Object name a key is counted under: `prefix + key`. */
  objectName(key: string): string {
    return `${this.options.prefix}${key}`;
  }

  protected override blockedKeys(): BlockedKeys {
    return blockedKeysFor(this.#client.raw, this.scope);
  }

  protected async consult(key: string, now: number): Promise<RateCheckResult> {
    const call: RateCheckCall = { key, limit: this.limit, window: this.window };
    // Without an injected clock the object's own clock decides: one clock per key, so no skew.
    // With one, checks of different windows never share a batch.
    let lane = key;
    if (this.options.clockInjected) {
      call.now = now;
      lane = `${key}|${fixedWindow(now, this.window).index}`;
    }
    // Each check keeps its own deadline (the base class); a batch needs none of its own. A call in
    // flight longer than that deadline has a sender whose request went away.
    return coalescerFor(this.#client.raw, this.scope).run(
      lane,
      (count) => this.#send(call, count),
      this.options.timeoutMs,
    );
  }

  /** One call for `count` checks, made by the check that leads the batch, from its own request. */
  async #send(call: RateCheckCall, count: number): Promise<RateCheckResult[]> {
    // A stub per call, made in the request that sends it: Workers forbid I/O on behalf of another request.
    const stub = this.#client.get(this.objectName(call.key)) as unknown as RateCheckStub;
    if (count === 1) {
      const { allowed, remaining, retryAfter, resetAt } = await stub.check(call);
      return [retryAfter === undefined ? { allowed, remaining, resetAt } : { allowed, remaining, retryAfter, resetAt }];
    }
    const answer: unknown = await stub.checkBatch({ ...call, count });
    if (!isBatchResult(answer, count)) throw new TypeError("RateLimiterDO answered a batch with an unexpected shape");
    return expandBatch(answer, count);
  }
}
