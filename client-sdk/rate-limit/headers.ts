/**
 * @module
 * The answers and headers of a limiter: IETF draft-10 `RateLimit-Policy`
 * (`"default";q=100;w=60`) and `RateLimit` (`"default";r=50;t=30`) on every
 * response that passed a limiter, and the 429 (or store-failure 503) with
 * `Retry-After`. Never puts the limited key (often a client address) on the wire.
 */
import { retryAfterSeconds, secondsUntil } from "./window";

export interface PolicyInfo {
  /** Policy name, an sf-string in the header. */
  name: string;
  limit: number;
  /** Window in seconds. */
  window: number;
}

export interface QuotaState {
  remaining: number;
  /** End of the window, ms since the epoch. */
  resetAt: number;
}

/** `"default";q=100;w=60` */
export function rateLimitPolicyHeader(policy: PolicyInfo): string {
  return `${quote(policy.name)};q=${policy.limit};w=${policy.window}`;
}

/** `"default";r=50;t=30`: `r` units left, `t` whole seconds until the window ends. */
export function rateLimitHeader(policy: PolicyInfo, state: QuotaState, now: number): string {
  return `${quote(policy.name)};r=${Math.max(0, state.remaining)};t=${secondsUntil(state.resetAt, now)}`;
}

/** Sets both draft headers on `headers`. */
export function setRateLimitHeaders(headers: Headers, policy: PolicyInfo, state: QuotaState, now: number): void {
  headers.set("RateLimit-Policy", rateLimitPolicyHeader(policy));
  headers.set("RateLimit", rateLimitHeader(policy, state, now));
}

/** The JSON body of a 429. */
export interface RateLimitedBody {
  error: "rate_limited";
  message: string;
  retryAfter: number;
}

/** The JSON body of a 503 under `onStoreError: "deny"`. */
export interface StoreUnavailableBody {
  error: "rate_limit_unavailable";
  message: string;
  retryAfter: number;
}

/** 429 with `Retry-After` (seconds until the window ends, at least 1) and both draft headers. */
export function rateLimitedResponse(policy: PolicyInfo, resetAt: number, now: number): Response {
  const retryAfter = retryAfterSeconds(resetAt, now);
  const body: RateLimitedBody = {
    error: "rate_limited",
    message: `Too many requests: at most ${policy.limit} per ${policy.window} s. Retry in ${retryAfter} s.`,
    retryAfter,
  };
  return errorJson(429, body, policy, { remaining: 0, resetAt }, now, retryAfter);
}

/** Seconds a client is asked to wait when the store failed and the policy is deny. */
export const STORE_FAILURE_RETRY_AFTER = 1;

/** 503 when the store failed and the policy is deny: not the client's fault, so not a 429. */
export function storeUnavailableResponse(policy: PolicyInfo, resetAt: number, now: number): Response {
  const body: StoreUnavailableBody = {
    error: "rate_limit_unavailable",
    message: "The rate limiter is unavailable. Retry shortly.",
    retryAfter: STORE_FAILURE_RETRY_AFTER,
  };
  return errorJson(503, body, policy, { remaining: 0, resetAt }, now, STORE_FAILURE_RETRY_AFTER);
}

function errorJson(
  status: number,
  body: RateLimitedBody | StoreUnavailableBody,
  policy: PolicyInfo,
  state: QuotaState,
  now: number,
  retryAfter: number,
): Response {
  const res = Response.json(body, { status });
  res.headers.set("Retry-After", String(retryAfter));
  res.headers.set("Cache-Control", "no-store");
  setRateLimitHeaders(res.headers, policy, state, now);
  return res;
}

/**
 * `res` with both draft headers. Headers are set in place when the response
 * allows it; an immutable one (straight from `fetch`) is copied, keeping a
 * WebSocket upgrade's socket.
 */
export function withRateLimitHeaders(res: Response, policy: PolicyInfo, state: QuotaState, now: number): Response {
  try {
    setRateLimitHeaders(res.headers, policy, state, now);
    return res;
  } catch {
    const copy = new Response(res.body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
      webSocket: res.webSocket,
    });
    setRateLimitHeaders(copy.headers, policy, state, now);
    return copy;
  }
}

/** An RFC 8941 sf-string. Names are checked at construction; escape anyway. */
function quote(name: string): string {
  return `"${name.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
