/**
 * @module gatehouse-workers/rate-limit
 * Fixed-window rate limiting: `KVRateLimiter`, `DORateLimiter` (its object is `RateLimiterDO`
 * of `gatehouse-workers/durable-objects`), the `RateLimiter` base, key extractors and the
 * rate-check protocol. The test double (`fakeRateLimiter`, `RateLimiterFake`) is
 * `gatehouse-workers/testing`: one module, so both limiters defer to it from either import.
 */
export {
  DORateLimiter,
  type DORateLimiterOptions,
  defaultKeyExtractor,
  edgeAddressKeyExtractor,
  type KeyExtractor,
  KVRateLimiter,
  type RateCheckBatchCall,
  type RateCheckBatchResult,
  type RateCheckCall,
  type RateCheckRequest,
  type RateCheckResponse,
  type RateCheckResult,
  type RateLeaseCall,
  type RateLeaseResult,
  type RateLimitDecision,
  RateLimitError,
  type RateLimitErrorCode,
  type RateLimitedBody,
  RateLimiter,
  type RateLimiterConfig,
  type RateLimiterObjects,
  type RateLimiterOptions,
  type RateLimitLogger,
  type RateLimitSource,
  type RateReleaseCall,
  type RateReleaseResult,
  type StoreErrorPolicy,
  type StoreUnavailableBody,
} from "../rate-limit";
