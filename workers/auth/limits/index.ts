/**
 * @module
 * Default rate limits of the auth worker's own routes (login, callback,
 * admin, webhooks, live): one `DORateLimiter` per route family, keyed by client address
 * (`CF-Connecting-IP` only, never the client-settable `X-Forwarded-For`; an
 * IPv6 client by its /64), exact and shared by every location. A browser that hits a limit gets a
 * readable 429 page (API clients keep the JSON body); `Retry-After` and the
 * draft-10 headers are kept either way. A refused request that carries a
 * session is told to its user's timeline (`ratelimit.lockout`, throttled).
 * Without a RATE_LIMITER binding the routes are not limited, and the worker
 * says so once in its logs.
 */

import type { MiddlewareHandler } from "hono";
import { StatefulObjectClient } from "../../../client-sdk/bindings/durable-object";
import type { Application } from "../../../client-sdk/core/application";
import { Token } from "../../../client-sdk/core/container";
import { type Middleware, type Next, toHono } from "../../../client-sdk/core/middleware";
import { DORateLimiter, edgeAddressKeyExtractor, type RateLimiterOptions } from "../../../client-sdk/rate-limit";
import type { RateLimiterDO } from "../../../durable-objects/rate-limiter";
import { errorPage, wantsJson } from "../pages";
import { SessionManager } from "../session/session-manager";

/** Requests per window (seconds) per client address. Documented in README "Rate limits". */
export const AUTH_RATE_LIMITS = {
  login: { limit: 20, window: 60 },
  callback: { limit: 20, window: 60 },
  admin: { limit: 60, window: 60 },
  webhooks: { limit: 600, window: 60 },
  /**
   * `/parties/*`: every upgrade per address (an office behind one NAT opens a socket per page view,
   * so the budget is generous); refused upgrades also per user id in the path.
   */
  live: { limit: 600, window: 60 },
  /**
   * `POST /auth/dbsc/register` and `/auth/dbsc/refresh` (only with device binding on): Chrome refreshes
   * at most six times per nine minutes per site and browser, so this leaves room for many behind one NAT.
   */
  dbsc: { limit: 120, window: 60 },
  /**
   * The shared-signals stream management API (only with `ssf.receivers`): machines that reconcile
   * their streams, per address, counted before the token is checked (a guesser is slowed too).
   */
  ssf: { limit: 300, window: 60 },
} as const;

export type AuthRouteFamily = keyof typeof AUTH_RATE_LIMITS;

/** One route family's limit, or `false` to leave that family unlimited. */
export type AuthRateLimit = { limit: number; window: number } | false;

/** The auth routes' limits; a family left out keeps its default from `AUTH_RATE_LIMITS`. */
export type AuthRateLimits = Partial<Record<AuthRouteFamily, AuthRateLimit>>;

/** The table an application was configured with (`createAuthWorker({ rateLimits })`). */
export const AuthRateLimitsToken = new Token<AuthRateLimits>("AuthRateLimits");

/**
 * `routeLimiter` with the application's own table, when it registered one. `reportLockouts: false`
 * for a family whose requests are not the person's own attempts (the live channel's automatic
 * reconnects): a lockout there is not news for their timeline.
 */
export function routeLimiterFor<E extends LimitsEnv>(
  app: Application<E>,
  family: AuthRouteFamily,
  options: { reportLockouts?: boolean; transient?: boolean } = {},
): MiddlewareHandler | null {
  const lockouts: LockoutReporter = (request, retryAfter) =>
    app.container.has(SessionManager)
      ? app.container.resolve(SessionManager).reportLockout(request, family, retryAfter)
      : Promise.resolve();
  const reporter = options.reportLockouts === false ? undefined : lockouts;
  return routeLimiter(app.env, family, tableOf(app), reporter, options.transient === true);
}

/** The application's own limits table, when it registered one. */
function tableOf<E extends LimitsEnv>(app: Application<E>): AuthRateLimits {
  return app.container.has(AuthRateLimitsToken) ? app.container.resolve(AuthRateLimitsToken) : {};
}

/**
 * The live channel's second key: refused upgrades per user id in the path (`rl:auth:live-user:`),
 * with the `live` family's limit. Answers the 429 once that id is over it, else null. Null
 * altogether when the family is off or no RATE_LIMITER is bound.
 */
export function liveRefusalLimiter<E extends LimitsEnv>(
  app: Application<E>,
): ((request: Request) => Promise<Response | null>) | null {
  const limiter = familyLimiter(app.env, "live", tableOf(app), {
    // `/parties/user-sessions/<userId>`: the route checked the id before it refuses anything.
    keyExtractor: (request) => new URL(request.url).pathname.split("/")[3] ?? "",
    prefix: "rl:auth:live-user:",
    policyName: "auth-live-user",
  });
  if (!limiter) return null;
  return async (request) => {
    const res = await limiter.handle(request, async () => new Response(null, { status: 204 }));
    return res.status === 204 ? null : res;
  };
}

/** Tells a user's timeline that a request carrying their session was refused by a limit. */
export type LockoutReporter = (request: Request, retryAfterSeconds: number) => Promise<void>;

export interface LimitsEnv {
  RATE_LIMITER?: DurableObjectNamespace<RateLimiterDO>;
}

let warned = false;

/** The Hono middleware limiting one route family, or null when no RATE_LIMITER is bound. */
export function routeLimiter(
  env: LimitsEnv,
  family: AuthRouteFamily,
  table: AuthRateLimits = {},
  lockouts?: LockoutReporter,
  transient = false,
): MiddlewareHandler | null {
  const limiter = familyLimiter(env, family, table);
  return limiter ? toHono(new HtmlRateLimitPage(limiter, lockouts, transient)) : null;
}

/**
 * The `DORateLimiter` of one family's limit (keyed by client address under `rl:auth:<family>:`
 * unless `key` says otherwise); null when the family is off or no RATE_LIMITER is bound.
 */
function familyLimiter(
  env: LimitsEnv,
  family: AuthRouteFamily,
  table: AuthRateLimits,
  key: Pick<RateLimiterOptions, "keyExtractor" | "prefix" | "policyName"> = {
    keyExtractor: edgeAddressKeyExtractor,
    prefix: `rl:auth:${family}:`,
    policyName: `auth-${family}`,
  },
): DORateLimiter | null {
  const limit = table[family] ?? AUTH_RATE_LIMITS[family];
  if (limit === false) return null;
  if (!env.RATE_LIMITER) {
    if (!warned) {
      warned = true;
      console.warn("gatehouse: RATE_LIMITER is not bound; the auth routes are not rate-limited");
    }
    return null;
  }
  return new DORateLimiter(new StatefulObjectClient(env.RATE_LIMITER), {
    limit: limit.limit,
    window: limit.window,
    ...key,
  });
}

/**
 * Turns a limiter's 429 JSON into a page for browsers, keeping its status and headers, and
 * reports the lockout (best effort: a failed report never changes the answer). With `transient`
 * (the DBSC routes, which the browser calls by itself) the refusal is a 503 instead: Chrome deletes a
 * device-bound session on a 429 like on any 4xx, but keeps it on a 5xx and tries again later.
 */
export class HtmlRateLimitPage implements Middleware {
  constructor(
    readonly limiter: Middleware,
    readonly lockouts?: LockoutReporter,
    readonly transient = false,
  ) {}

  async handle(request: Request, next: Next): Promise<Response> {
    const res = await this.limiter.handle(request, next);
    if (res.status !== 429) return res;
    const retryAfter = res.headers.get("Retry-After") ?? "60";
    const seconds = /^\d{1,6}$/.test(retryAfter) ? Number(retryAfter) : 60;
    // Not for requests another site made the browser send (its navigations carry the Lax cookie):
    // a page could otherwise write lockouts on any signed-in visitor's timeline.
    if (this.lockouts && request.headers.has("Cookie") && request.headers.get("Sec-Fetch-Site") !== "cross-site") {
      await this.lockouts(request, seconds).catch((err: unknown) => {
        console.warn("gatehouse: could not record a lockout", err instanceof Error ? err.name : "error");
      });
    }
    if (this.transient) return transientRefusal(res);
    if (wantsJson(request)) return res;
    const page = errorPage(
      request,
      429,
      "rate_limited",
      `Too many attempts. Please wait ${seconds === 1 ? "1 second" : `${seconds} seconds`} and try again.`,
      {
        title: "Too many requests",
      },
    );
    for (const [name, value] of res.headers) {
      if (name !== "content-type" && name !== "content-length") page.headers.set(name, value);
    }
    return page;
  }
}

/** A limiter's 429 as a 503 with the same JSON body and headers (`Retry-After` kept), never cached. */
function transientRefusal(res: Response): Response {
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  headers.set("Cache-Control", "no-store");
  return new Response(res.body, { status: 503, headers });
}
