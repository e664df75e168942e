/**
 * The bench worker: Gatehouse's RateLimiterDO, a variant that counts the
 * calls reaching it (for `ratelimit.denied_roundtrips` and the hot-key bench),
 * and the peer's Durable Object class, read from
 * node_modules/@hono-rate-limiter/cloudflare, with a counting variant too.
 */
import { DurableObjectRateLimiter } from "@hono-rate-limiter/cloudflare";
import { RateLimiterDO } from "gatehouse-workers/durable-objects";
import type {
  RateCheckBatchCall,
  RateCheckBatchResult,
  RateCheckCall,
  RateCheckResult,
  RateLeaseCall,
  RateLeaseResult,
  RateReleaseCall,
  RateReleaseResult,
} from "gatehouse-workers/rate-limit";

export { DurableObjectRateLimiter, RateLimiterDO };

/**
 * Counts every call that reaches the object (a check, a batch, a lease, a return): a round trip the
 * limiter made. The count is stored: local workerd evicts an object idle for a few seconds (the
 * hot-key bench's refusals come from memory for a long while), which would reset a field.
 */
export class CountingRateLimiterDO extends RateLimiterDO {
  get served(): number {
    return this.ctx.storage.kv.get<number>("bench:served") ?? 0;
  }
  #call(): void {
    this.ctx.storage.kv.put("bench:served", this.served + 1);
  }
  override lease(call: RateLeaseCall): RateLeaseResult {
    this.#call();
    return super.lease(call);
  }
  override release(call: RateReleaseCall): RateReleaseResult {
    this.#call();
    return super.release(call);
  }
  override check(call: RateCheckCall): RateCheckResult {
    this.#call();
    return super.check(call);
  }
  override checkBatch(call: RateCheckBatchCall): RateCheckBatchResult {
    this.#call();
    return super.checkBatch(call);
  }
}

/** The peer's object, counting every call its store makes (`increment` is one `update`). */
export class CountingPeerRateLimiter extends DurableObjectRateLimiter {
  served = 0;
  override value() {
    this.served++;
    return super.value();
  }
  override update(hits: number, windowMs: number) {
    this.served++;
    return super.update(hits, windowMs);
  }
}

export default {
  fetch: () => new Response("bench worker"),
};
