/**
 * @module
 * The configuration of both limiters: the spec's `RateLimiterConfig`
 * (`limit`, `window`, `keyExtractor`) plus Gatehouse's options (clock,
 * store-failure policy, timeout, prefix, policy name, logger). Validated once
 * at construction; a bad value throws `RateLimitError("invalid_config")`, never later.
 */
import { RateLimitError } from "./errors";
import { defaultKeyExtractor, type KeyExtractor } from "./key";
import { isIntegerIn, MAX_LIMIT, MAX_WINDOW_SECONDS } from "./protocol";

/** What a limiter does when its store (KV, the Durable Object) fails or times out. */
export type StoreErrorPolicy = "allow" | "deny";

/** Receives every store failure. The key is never passed (it is often a client address). */
export type RateLimitLogger = (message: string, error: unknown) => void;

/** Spec: `RateLimiterConfig`. */
export interface RateLimiterConfig {
  /** Requests admitted per window and key, an integer from 1 to 10,000,000. */
  limit: number;
  /** Window length in seconds, an integer from 1 to 366 days. Windows are fixed and aligned to the epoch. */
  window: number;
  /** Overrides the default key (`CF-Connecting-IP`, then `X-Forwarded-For`, then `unknown`). */
  keyExtractor?: KeyExtractor;
}

/** `RateLimiterConfig` plus Gatehouse's options; every option has a default. */
export interface RateLimiterOptions extends RateLimiterConfig {
  /**
   * Milliseconds since the epoch. Default `Date.now`. Inject one in tests. With
   * `DORateLimiter` the object purges windows that ended by its own clock, so an
   * injected clock must not lag real time (use one in the future, as the tests do).
   */
  clock?: () => number;
  /** Store failure: `"allow"` admits (the default: an outage of KV or a Durable Object never takes the app down), `"deny"` answers 503. */
  onStoreError?: StoreErrorPolicy;
  /** A store call slower than this counts as a store failure. Default 2000 ms. */
  timeoutMs?: number;
  /** Namespaces KV keys and Durable Object names. Default `"rl:"`. */
  prefix?: string;
  /** The policy name in the `RateLimit-Policy` and `RateLimit` headers. Default `"default"`. */
  policyName?: string;
  /** Where store failures are logged. Default `console.error`. */
  logger?: RateLimitLogger;
}

export interface ResolvedOptions {
  limit: number;
  window: number;
  keyExtractor: KeyExtractor;
  clock: () => number;
  clockInjected: boolean;
  onStoreError: StoreErrorPolicy;
  timeoutMs: number;
  prefix: string;
  policyName: string;
  logger: RateLimitLogger;
}

export const DEFAULT_STORE_ERROR_POLICY: StoreErrorPolicy = "allow";
export const DEFAULT_TIMEOUT_MS = 2000;
export const DEFAULT_PREFIX = "rl:";
export const DEFAULT_POLICY_NAME = "default";

const POLICY_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

export function resolveOptions(options: RateLimiterOptions): ResolvedOptions {
  const { limit, window } = options ?? ({} as RateLimiterOptions);
  if (!isIntegerIn(limit, 1, MAX_LIMIT)) invalid(`limit must be an integer from 1 to ${MAX_LIMIT} (got ${limit})`);
  if (!isIntegerIn(window, 1, MAX_WINDOW_SECONDS)) {
    invalid(`window must be an integer number of seconds from 1 to ${MAX_WINDOW_SECONDS} (got ${window})`);
  }
  const onStoreError = options.onStoreError ?? DEFAULT_STORE_ERROR_POLICY;
  if (onStoreError !== "allow" && onStoreError !== "deny") invalid(`onStoreError must be "allow" or "deny"`);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0 && timeoutMs <= 60_000)) invalid(`timeoutMs must be from 1 to 60000 (got ${timeoutMs})`);
  const policyName = options.policyName ?? DEFAULT_POLICY_NAME;
  if (!POLICY_NAME.test(policyName)) invalid("policyName must be 1-64 characters of A-Z a-z 0-9 _ . : -");
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (typeof prefix !== "string" || prefix.length > 64) invalid("prefix must be a string of at most 64 characters");
  return {
    limit,
    window,
    keyExtractor: options.keyExtractor ?? defaultKeyExtractor,
    clock: options.clock ?? Date.now,
    clockInjected: options.clock !== undefined,
    onStoreError,
    timeoutMs,
    prefix,
    policyName,
    logger: options.logger ?? ((message, error) => console.error(message, error)),
  };
}

function invalid(message: string): never {
  throw new RateLimitError("invalid_config", { message });
}
