/**
 * @module
 * `RateLimitError`: the one error class of the rate-limit layer. Store
 * failures, bad configuration and failed fake assertions throw it; it must
 * never carry a limited key (often a client address) in its message.
 */
import { GatehouseError } from "../core/errors";

export type RateLimitErrorCode =
  /** A limiter was built with a bad `limit`, `window` or option. */
  | "invalid_config"
  /** KV or the Durable Object failed (including a KV 429). */
  | "store_error"
  /** KV or the Durable Object did not answer within `timeoutMs`. */
  | "store_timeout"
  /** A `RateLimiterFake` assertion did not hold. */
  | "assertion_failed";

export class RateLimitError extends GatehouseError<RateLimitErrorCode> {
  override name = "RateLimitError";
}
