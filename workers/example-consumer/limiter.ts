/**
 * @module
 * `AuthServiceRateLimiter`: a `RateLimiter` whose store is the auth worker's
 * `RateLimiterDO`, reached through `AuthServiceClient.checkRateLimit`, so this
 * worker shares exact limits without a Durable Object binding of its own. The
 * base class brings the 429s, headers, blocked-key memory and the fake. It
 * never counts a key itself, and a store the auth worker reports as failed is
 * a store failure here too, so this limiter's own `onStoreError` decides.
 */
import type { AuthServiceClient } from "gatehouse-workers/client";
import {
  type RateCheckResult,
  RateLimitError,
  RateLimiter,
  type RateLimiterOptions,
} from "gatehouse-workers/rate-limit";

/**
 * @example
 * ```ts
 * const limiter = new AuthServiceRateLimiter(new AuthServiceClient(env.AUTH), {
 *   limit: 100,
 *   window: 600,
 *   prefix: "example:quota:",
 *   keyExtractor: (request) => currentUser(request)?.id ?? "anonymous",
 * });
 * app.hono.use("/api/quota", limiter.hono());
 * ```
 */
export class AuthServiceRateLimiter extends RateLimiter {
  protected readonly storeName = "auth-service";
  readonly #client: AuthServiceClient;

  constructor(client: AuthServiceClient, options: RateLimiterOptions) {
    super(options);
    this.#client = client;
  }

  protected async consult(key: string): Promise<RateCheckResult> {
    // The auth worker applies its own prefix (`rl:svc:`); ours keeps this worker's keys apart from other consumers'.
    const decision = await this.#client.checkRateLimit(`${this.options.prefix}${key}`, this.limit, this.window);
    if (decision.source === "store_error") {
      // The auth worker could not count (its policy admitted): let this limiter's policy decide instead.
      throw new RateLimitError("store_error", { message: "the auth worker's rate-limit store failed" });
    }
    const { allowed, remaining, retryAfter, resetAt } = decision;
    return retryAfter === undefined ? { allowed, remaining, resetAt } : { allowed, remaining, retryAfter, resetAt };
  }
}
