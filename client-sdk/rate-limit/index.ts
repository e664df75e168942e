/**
 * @module
 * Rate limiting: `KVRateLimiter`, `DORateLimiter` (with `RateLimiterDO` from
 * `gatehouse-workers/durable-objects`), the `RateLimiterFake` test double, the
 * draft-10 headers and the rate-check protocol. Exported by name only.
 */
export {
  DEFAULT_POLICY_NAME,
  DEFAULT_PREFIX,
  DEFAULT_STORE_ERROR_POLICY,
  DEFAULT_TIMEOUT_MS,
  type RateLimiterConfig,
  type RateLimiterOptions,
  type RateLimitLogger,
  type StoreErrorPolicy,
} from "./config";
export {
  DORateLimiter,
  type DORateLimiterOptions,
  type RateCheckStub,
  type RateLimiterObjects,
} from "./durable-object";
export { RateLimitError, type RateLimitErrorCode } from "./errors";
export { activeRateLimiterFake, fakeRateLimiter, RateLimiterFake, restoreRateLimiter } from "./fake";
export {
  type PolicyInfo,
  type QuotaState,
  type RateLimitedBody,
  rateLimitHeader,
  rateLimitPolicyHeader,
  STORE_FAILURE_RETRY_AFTER,
  type StoreUnavailableBody,
} from "./headers";
export {
  addressKey,
  defaultKeyExtractor,
  EDGE_CONNECTING_IP_HEADER,
  edgeAddressKeyExtractor,
  type KeyExtractor,
  UNKNOWN_KEY,
} from "./key";
export { KV_SYNC_INTERVAL_MS, KVRateLimiter } from "./kv";
export { type RateLimitDecision, RateLimiter, type RateLimitSource } from "./limiter";
export { BlockedKeys, blockedKeysFor, MAX_BLOCKED_KEYS } from "./memory";
export {
  expandBatch,
  isBatchResult,
  LEASE_TTL_MS,
  MAX_BATCH_COUNT,
  MAX_CHECK_BODY_BYTES,
  MAX_KEY_LENGTH,
  MAX_LIMIT,
  MAX_WINDOW_SECONDS,
  type RateCheckBatchCall,
  type RateCheckBatchResult,
  type RateCheckCall,
  type RateCheckInvalidReason,
  type RateCheckRequest,
  type RateCheckResponse,
  type RateCheckResult,
  type RateLeaseCall,
  type RateLeaseResult,
  type RateReleaseCall,
  type RateReleaseResult,
  validateRateCheck,
  validateRateCheckBatch,
} from "./protocol";
export { type FixedWindow, fixedWindow, retryAfterSeconds } from "./window";
