/**
 * @module
 * `DORateLimiter`: the exact fixed-window limiter. Each key is counted by
 * its own `RateLimiterDO` instance, reached through `StatefulObjectClient.get`
 * (never one global object); the object decides atomically, so concurrent
 * requests for a key admit exactly `limit`. Concurrent checks of one key in an
 * isolate are coalesced (`Coalescer`): one call asks the object for N decisions,
 * which it takes in arrival order, so exactness is unchanged and a hot key costs
 * one round trip per batch instead of one per check. A key hot in the isolate
 * (`lease.ts`) is leased instead: the batch and a reserve are debited at the
 * object in one call and the reserve is admitted here, so a hot key costs one
 * call per reserve, not per batch, and admissions stay within `limit` across
 * any number of isolates. It must never admit what the object did not debit,
 * and never share a stub between requests: each batch (and each return of a
 * lease) is sent by one of its own checks, from that check's request.
 */
import { Coalescer } from "../core/coalesce";
import { perBindingScope } from "../core/isolate-scope";
import type { RateLimiterOptions } from "./config";
import { RateLimitError } from "./errors";
import { LEASE_SUSPEND_MS, type LeaseBook, leasable, leaseBookFor } from "./lease";
import { RateLimiter } from "./limiter";
import { type BlockedKeys, blockedKeysFor } from "./memory";
import {
  expandBatch,
  isBatchResult,
  isLeaseResult,
  MAX_BATCH_COUNT,
  MAX_LIMIT,
  type RateCheckBatchCall,
  type RateCheckBatchResult,
  type RateCheckCall,
  type RateCheckResult,
  type RateLeaseCall,
  type RateLeaseResult,
  type RateReleaseCall,
  type RateReleaseResult,
} from "./protocol";
import { fixedWindow } from "./window";

/** The RPC surface of `RateLimiterDO` this limiter uses. */
export interface RateCheckStub {
  check(call: RateCheckCall): Promise<RateCheckResult>;
  checkBatch(call: RateCheckBatchCall): Promise<RateCheckBatchResult>;
  lease(call: RateLeaseCall): Promise<RateLeaseResult>;
  release(call: RateReleaseCall): Promise<RateReleaseResult>;
}

/** `RateLimiterOptions` plus what only the Durable Object limiter does. */
export interface DORateLimiterOptions extends RateLimiterOptions {
  /**
   * Lease slices of a hot key's window from its object and admit from them in the isolate
   * (issue 29; `lease.ts`). Default `true`. Policies with a limit under 512 never lease; a key
   * leases once this isolate has sent it 16 checks in the window (`HOT_AFTER_CHECKS`). `false`: one call per batch.
   */
  leasing?: boolean;
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
  readonly #leasing: boolean;

  constructor(doClient: RateLimiterObjects, config: DORateLimiterOptions) {
    super(config);
    this.#client = doClient;
    const leasing = config.leasing ?? true;
    if (typeof leasing !== "boolean") {
      throw new RateLimitError("invalid_config", { message: "leasing must be true or false" });
    }
    this.#leasing = leasing && leasable(this.limit);
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
    const book = this.#leasing ? leaseBookFor(this.#client.raw, this.scope, this.limit) : undefined;
    // A lease this isolate holds answers at once, with no call.
    const [leased] = book?.take(key, now) ?? [];
    if (leased) return leased;
    // Each check keeps its own deadline (the base class); a batch needs none of its own. A call in
    // flight longer than that deadline has a sender whose request went away.
    return coalescerFor(this.#client.raw, this.scope).run(
      lane,
      (count) => this.#send(call, count, now, book),
      this.options.timeoutMs,
    );
  }

  /** One call for `count` checks, made by the check that leads the batch, from its own request. */
  async #send(call: RateCheckCall, count: number, now: number, book?: LeaseBook): Promise<RateCheckResult[]> {
    // A lease may have come in while these checks queued behind the previous call.
    const leased = book?.take(call.key, now, count) ?? [];
    if (leased.length === count) return leased;
    const rest = count - leased.length;
    const windowIndex = fixedWindow(now, this.window).index;
    // A stub per call, made in the request that sends it: Workers forbid I/O on behalf of another request.
    const stub = this.#client.get(this.objectName(call.key)) as unknown as RateCheckStub;
    if (book && !book.suspended(now)) await giveBack(stub, book, call, now);
    if (book?.isHot(call.key, windowIndex) && !book.suspended(now)) {
      const answered = await this.#lease(stub, book, call, rest, now, windowIndex);
      if (answered) return [...leased, ...answered];
    }
    book?.sent(call.key, windowIndex, rest);
    return [...leased, ...(await this.#check(stub, call, rest))];
  }

  /**
   * A hot key's call: leases `count` checks plus the reserve. The checks take the first of the
   * grant, in arrival order; the isolate keeps the rest until `now + ttlMs`. Null when the lease
   * failed (an object without `lease`, say, during a deploy): leasing stops for `LEASE_SUSPEND_MS`
   * and the caller asks for the batch the plain way. A lease the object granted but whose answer
   * was lost stays debited: under-admission, never over.
   */
  async #lease(
    stub: RateCheckStub,
    book: LeaseBook,
    call: RateCheckCall,
    count: number,
    now: number,
    windowIndex: number,
  ): Promise<RateCheckResult[] | null> {
    const want = Math.min(MAX_LIMIT, count + book.reserve(call.key));
    let answer: unknown;
    try {
      answer = await stub.lease({ ...call, want });
      if (!isLeaseResult(answer, want)) throw new TypeError("RateLimiterDO answered a lease with an unexpected shape");
    } catch (err) {
      book.suspend(now + LEASE_SUSPEND_MS);
      this.options.logger("gatehouse: rate limiter lease failed; leasing paused, checks go one batch at a time", err);
      return null;
    }
    book.sent(call.key, windowIndex, count);
    const { granted, remaining, resetAt, retryAfter, leaseId, ttlMs } = answer;
    const admitted = Math.min(count, granted);
    const kept = granted - admitted;
    if (kept > 0) {
      book.hold(call.key, windowIndex, {
        id: leaseId!,
        left: kept,
        reserved: kept,
        // With an injected clock the lease's window is on that clock: never admit from it before it starts.
        from: this.options.clockInjected ? resetAt - this.window * 1000 : 0,
        // From this send's own clock reading, taken before the object's: never later than its expiry.
        until: now + ttlMs!,
        resetAt,
        remaining,
      });
    }
    const batch: RateCheckBatchResult = { admitted, remaining: remaining + kept, resetAt };
    if (retryAfter !== undefined) batch.retryAfter = retryAfter;
    return expandBatch(batch, count);
  }

  /** A plain check or batch: the object decides every check. */
  async #check(stub: RateCheckStub, call: RateCheckCall, count: number): Promise<RateCheckResult[]> {
    if (count === 1) {
      const { allowed, remaining, retryAfter, resetAt } = await stub.check(call);
      return [retryAfter === undefined ? { allowed, remaining, resetAt } : { allowed, remaining, retryAfter, resetAt }];
    }
    const answer: unknown = await stub.checkBatch({ ...call, count });
    if (!isBatchResult(answer, count)) throw new TypeError("RateLimiterDO answered a batch with an unexpected shape");
    return expandBatch(answer, count);
  }
}

/**
 * Gives back what ended leases of the key left, before the call that follows: each return is
 * idempotent at the object, so one that failed (and failed its batch) is simply sent again next time.
 */
async function giveBack(stub: RateCheckStub, book: LeaseBook, call: RateCheckCall, now: number): Promise<void> {
  for (const { id, unused } of [...book.returnsDue(call.key)]) {
    try {
      await stub.release({ ...call, leaseId: id, unused });
    } catch {
      // Kept for later (a return is idempotent); meanwhile this isolate asks one batch at a time.
      book.suspend(now + LEASE_SUSPEND_MS);
      return;
    }
    book.returned(call.key, id);
  }
}
