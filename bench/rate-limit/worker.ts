/**
 * The bench worker: Gatehouse's RateLimiterDO, a variant that counts the
 * checks reaching it (for `ratelimit.denied_roundtrips`), and the peer's
 * Durable Object class, read from node_modules/@hono-rate-limiter/cloudflare.
 */
import { DurableObjectRateLimiter } from "@hono-rate-limiter/cloudflare";
import { RateLimiterDO } from "gatehouse-workers/durable-objects";
import type {
  RateCheckBatchCall,
  RateCheckBatchResult,
  RateCheckCall,
  RateCheckResult,
} from "gatehouse-workers/rate-limit";

export { DurableObjectRateLimiter, RateLimiterDO };

/** Counts every check that reaches the object: a round trip the limiter made. */
export class CountingRateLimiterDO extends RateLimiterDO {
  served = 0;
  override check(call: RateCheckCall): RateCheckResult {
    this.served++;
    return super.check(call);
  }
  override checkBatch(call: RateCheckBatchCall): RateCheckBatchResult {
    this.served++;
    return super.checkBatch(call);
  }
}

export default {
  fetch: () => new Response("bench worker"),
};
