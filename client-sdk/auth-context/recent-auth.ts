/**
 * @module
 * Guards for sensitive actions, behind an auth middleware (`AuthMiddleware` in the auth worker,
 * `ServiceAuthMiddleware` in a consuming worker; both store the session they resolved):
 * - `RecentAuthMiddleware(maxAgeSeconds)`: a person whose last active authentication is older goes
 *   back through the identity provider with a forced re-authentication (`max_age`), and returns to
 *   the action. Page visits are redirected; anything else (a form post, `fetch`) gets 403
 *   `step_up_required` with where to go (an HTML page for browsers, JSON for API clients).
 * - `NoImpersonationMiddleware`: a session an operator opened as someone else is refused (403
 *   `impersonation_forbidden`), e.g. revoking other sessions or changing policy.
 * - `impersonationBanner(impersonator)` (banner.ts): the markup every page shows during an impersonation.
 * Signing out never needs either: it only takes access away.
 */

import { jsonError } from "../core/errors";
import type { Middleware, Next } from "../core/middleware";
import { escapeHtml } from "../html/escape";
import { currentRequestSession, wantsJson } from "./";

export { impersonationBanner } from "./banner";

export interface RecentAuthOptions {
  /**
   * The auth worker's login route: default `/auth/login` (in the auth worker itself); a consuming
   * worker passes its absolute URL, e.g. `https://auth.example.com/auth/login`.
   */
  loginUrl?: string;
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
}

/** The largest maximum age a step-up may ask for (a day). */
export const MAX_RECENT_AUTH_SECONDS = 86_400;

/**
 * @example
 * ```ts
 * app.hono.use("/settings/*", toHono(new RecentAuthMiddleware(300, { loginUrl: env.AUTH_LOGIN_URL })));
 * ```
 */
export class RecentAuthMiddleware implements Middleware {
  readonly #maxAgeMs: number;
  readonly #maxAge: number;
  readonly #loginUrl: string;
  readonly #clock: () => number;

  constructor(maxAgeSeconds: number, options: RecentAuthOptions = {}) {
    if (!Number.isInteger(maxAgeSeconds) || maxAgeSeconds < 0 || maxAgeSeconds > MAX_RECENT_AUTH_SECONDS) {
      throw new RangeError(
        `RecentAuthMiddleware: maxAgeSeconds must be a whole number from 0 to ${MAX_RECENT_AUTH_SECONDS}`,
      );
    }
    this.#maxAge = maxAgeSeconds;
    this.#maxAgeMs = maxAgeSeconds * 1000;
    this.#loginUrl = options.loginUrl ?? "/auth/login";
    this.#clock = options.clock ?? Date.now;
  }

  async handle(request: Request, next: Next): Promise<Response> {
    const session = currentRequestSession(request);
    if (!session) return jsonError(401, "unauthenticated", "Sign in first");
    if (this.#clock() - (session.authenticatedAt ?? 0) <= this.#maxAgeMs) return next();
    const navigation = (request.method === "GET" || request.method === "HEAD") && !wantsJson(request);
    if (navigation) {
      const login = stepUpUrl(this.#loginUrl, request.url, this.#maxAge);
      return new Response(null, { status: 302, headers: { Location: login, "Cache-Control": "no-store" } });
    }
    // A post cannot be replayed after a redirect: send the person back to the page they came from.
    const back = sameOriginReferer(request) ?? new URL("/", request.url).href;
    const login = stepUpUrl(this.#loginUrl, back, this.#maxAge);
    if (wantsJson(request)) {
      return Response.json(
        { error: "step_up_required", message: "Sign in again to continue.", login },
        { status: 403, headers: { "Cache-Control": "no-store" } },
      );
    }
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Confirm it's you</title></head><body><h1>Confirm it's you</h1><p>This action needs a recent sign-in.</p><p><a href="${escapeHtml(login)}">Sign in again to continue</a></p><p>Error: <code>step_up_required</code> (403)</p></body></html>`;
    return new Response(html, {
      status: 403,
      headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" },
    });
  }
}

/** Refuses a session an operator opened as someone else (403 `impersonation_forbidden`). */
export class NoImpersonationMiddleware implements Middleware {
  async handle(request: Request, next: Next): Promise<Response> {
    if (currentRequestSession(request)?.impersonator) {
      return jsonError(403, "impersonation_forbidden", "Not while signed in as someone else.");
    }
    return next();
  }
}

/** The login URL of a step-up back to `wanted`: `return_to` (a path on the same origin) and `max_age`. */
export function stepUpUrl(loginUrl: string, wanted: string, maxAgeSeconds: number): string {
  const target = new URL(wanted);
  const login = new URL(loginUrl, target);
  const path = `${target.pathname}${target.search}`;
  login.searchParams.set("return_to", login.origin === target.origin ? path : `${target.origin}${path}`);
  login.searchParams.set("max_age", String(maxAgeSeconds));
  return login.origin === target.origin ? `${login.pathname}${login.search}` : login.href;
}

function sameOriginReferer(request: Request): string | null {
  const referer = request.headers.get("Referer");
  if (!referer) return null;
  try {
    const url = new URL(referer);
    return url.origin === new URL(request.url).origin ? url.href : null;
  } catch {
    return null;
  }
}
