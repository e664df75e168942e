/**
 * @module
 * The spec's `handleLogout`: destroys the current session, clears the cookie
 * and redirects. Failures of the store answer a readable page and still clear
 * the cookie; nothing internal reaches the client. Also the guard of the
 * logout route against cross-site sign-out: a GET signs out only when it is
 * the person's own navigation; every other GET gets a confirm page that POSTs.
 */

import { safeReturnTo } from "../flow/return-to";
import type { IdentityClient } from "../identity/identity-client";
import { authErrorPage, errorPage, escapeHtml, page, wantsJson } from "../pages";
import type { SessionManager } from "../session/session-manager";

export interface LogoutOptions {
  /** Also end the provider session (best effort, never blocks local logout). */
  identityClient?: IdentityClient;
  /** Keeps the provider call alive after the response (pass `ctx.waitUntil`). */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * Origins an absolute `redirectTo` may name (e.g. a consuming app's); default none. A path on
   * this origin is always honoured; any other absolute URL falls back to `/auth/login`.
   */
  returnOrigins?: readonly string[];
}

/**
 * Destroys the current session, clears the cookie, redirects to `redirectTo` (default `/auth/login`):
 * a same-origin path, or an absolute URL on `options.returnOrigins`; anything else redirects to
 * `/auth/login` (never an open redirect).
 */
export async function handleLogout(
  request: Request,
  sessionManager: SessionManager,
  redirectTo = "/auth/login",
  options: LogoutOptions = {},
): Promise<Response> {
  const location = safeReturnTo(redirectTo, "/auth/login", options.returnOrigins);
  try {
    const resolved = await sessionManager.resolveSession(request).catch(() => null);
    const sessionId =
      resolved?.sessionId ?? (await sessionManager.sessionIdFromCookieHeader(request.headers.get("Cookie")));
    const cleared = sessionId ? await sessionManager.destroySession(sessionId) : null;
    const providerSessionId = resolved?.record.providerSessionId;
    if (providerSessionId && options.identityClient) {
      const ending = options.identityClient.revokeSession(providerSessionId).catch((err) => {
        console.warn("gatehouse: provider session revoke failed", err instanceof Error ? err.message : err);
      });
      options.waitUntil?.(ending);
    }
    const res = new Response(null, { status: 302, headers: { Location: location, "Cache-Control": "no-store" } });
    res.headers.append("Set-Cookie", cleared?.headers.get("Set-Cookie") ?? sessionManager.clearCookie());
    return res;
  } catch (err) {
    // The store failed: the browser still forgets the cookie, and the person is told.
    return authErrorPage(request, err, [["Set-Cookie", sessionManager.clearCookie()]]);
  }
}

/**
 * Whether a GET of the logout route is the person's own navigation, which may sign out as the spec
 * says: fetch metadata `Sec-Fetch-Site: same-origin` or `none` (typed, bookmarked), or `same-site`
 * from `origin` (this site's public origin, never the request's `Host`) or a trusted one (`Origin`,
 * else `Referer`), with `Sec-Fetch-Mode: navigate`. A request without fetch metadata (an older
 * browser, a script) keeps the spec's behaviour. Anything else (a link or redirect from another
 * site, an `<img>` on a sibling subdomain) is not.
 */
export function isOwnLogoutNavigation(
  request: Request,
  origin: string,
  trustedOrigins: readonly string[] = [],
): boolean {
  const site = request.headers.get("Sec-Fetch-Site");
  if (site === null) return true;
  if (request.headers.get("Sec-Fetch-Mode") !== "navigate") return false;
  if (site === "same-origin" || site === "none") return true;
  if (site !== "same-site") return false;
  const from = request.headers.get("Origin") ?? originOf(request.headers.get("Referer"));
  return from !== null && (from === origin || trustedOrigins.includes(from));
}

function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * The answer to a GET of the logout route that is not the person's own navigation: a page whose
 * button POSTs the sign-out with a CSRF token (browsers), or 403 `logout_confirm_required` (API clients).
 */
export function logoutConfirmPage(request: Request, csrf: string): Response {
  if (wantsJson(request)) {
    return errorPage(request, 403, "logout_confirm_required", "Sign out with POST /auth/logout and a CSRF token.");
  }
  const res = page(
    "Sign out?",
    `<h1>Sign out?</h1><p>Do you want to sign out of this device?</p>
<form method="post" action="/auth/logout"><input type="hidden" name="_csrf" value="${escapeHtml(csrf)}"><button type="submit">Sign out</button></form>
<p><a href="/">Stay signed in</a></p>`,
  );
  res.headers.set("Cache-Control", "private, no-store");
  return res;
}
