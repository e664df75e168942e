/**
 * @module
 * The request values every auth middleware shares: the signed-in session
 * (public id and user) and the current organization slug. `AuthMiddleware`
 * (gatehouse-workers/auth, in the auth worker) and `ServiceAuthMiddleware` (gatehouse-workers/client,
 * in consuming workers) set the same keys, so `RoleMiddleware` and
 * `currentUser` work behind either. It must never import auth-worker runtime code.
 */

import { getRequestValue, type Next, RequestKey, setRequestValue } from "../core/middleware";
import { HtmlTransformer } from "../html/transformer";
import type { AppUser } from "../protocol/users";
import { impersonationBanner } from "./banner";

/** What an auth middleware stores for a request: at least the public session id and the user. */
export interface RequestSession {
  sessionId: string;
  user: AppUser;
  /** When the person last actively authenticated (ms), for step-up (`RecentAuthMiddleware`). */
  authenticatedAt?: number;
  /** Set when an operator is signed in as this person (the provider's impersonation). */
  impersonator?: { email: string; reason: string | null } | null;
}

/** The session an auth middleware resolved for this request, or null. */
export function currentRequestSession(request: Request): RequestSession | null {
  return getRequestValue(request, CurrentSession) ?? null;
}

/** Set by auth middleware; read with `currentUser(request)`. */
export const CurrentSession = new RequestKey<RequestSession>("gatehouse.session");
/** The organization slug an `OrgResolver` found for this request (null: none matched). */
export const CurrentOrganizationSlug = new RequestKey<string | null>("gatehouse.organizationSlug");

/** The user an auth middleware resolved for this request, or null. */
export function currentUser(request: Request): AppUser | null {
  return getRequestValue(request, CurrentSession)?.user ?? null;
}

/** The organization slug `OrgResolver` found for this request (via the auth middleware's `orgResolver`), or null. */
export function currentOrganizationSlug(request: Request): string | null {
  return getRequestValue(request, CurrentOrganizationSlug) ?? null;
}

/** True when the client takes HTML (a browser's navigation sends `Accept: text/html…`; `curl` and scripts do not). */
export function acceptsHtml(request: Request): boolean {
  return (request.headers.get("Accept") ?? "").includes("text/html");
}

/** True when the client asked for JSON and not HTML (`fetch` from scripts, API clients). */
export function wantsJson(request: Request): boolean {
  const accept = request.headers.get("Accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/html");
}

/**
 * What an auth middleware answers without a session (spec: AuthMiddleware redirects to the login
 * page): a page visit (GET/HEAD that does not ask for JSON) is redirected (302) to `loginLocation`;
 * a browser's form submission (another method, `Accept: text/html`) is sent there too, with 303 and
 * without `return_to` (a form's action is no page to come back to); anything else gets 401 JSON,
 * since a redirect is useless to `fetch`.
 */
export function unauthenticatedResponse(
  request: Request,
  loginLocation: string,
  options: { api?: boolean } = {},
): Response {
  const safe = request.method === "GET" || request.method === "HEAD";
  const isNavigation = !options.api && (safe ? !wantsJson(request) : acceptsHtml(request));
  if (!isNavigation) {
    return Response.json(
      { error: "unauthenticated", message: "Sign in first" },
      { status: 401, headers: { "Cache-Control": "no-store" } },
    );
  }
  const location = safe ? loginLocation : withoutReturnTo(loginLocation);
  return new Response(null, { status: safe ? 302 : 303, headers: { Location: location, "Cache-Control": "no-store" } });
}

/** `location` (a path or an absolute URL) without its `return_to` parameter. */
function withoutReturnTo(location: string): string {
  const url = new URL(location, "http://relative.invalid");
  url.searchParams.delete("return_to");
  return url.origin === "http://relative.invalid" ? `${url.pathname}${url.search}` : url.href;
}

/**
 * Runs the rest of the chain for a resolved session: sets the shared request
 * values, then marks the answer `private, no-store` (unless it set its own
 * Cache-Control), so Back after logout cannot show an authenticated page.
 */
export async function continueAuthenticated(
  request: Request,
  next: Next,
  session: RequestSession,
  orgResolver?: { resolve(request: Request): { slug: string } | null },
): Promise<Response> {
  setRequestValue(request, CurrentSession, session);
  if (orgResolver) setRequestValue(request, CurrentOrganizationSlug, orgResolver.resolve(request)?.slug ?? null);
  let res = await next();
  // During an impersonation every page says so, whichever app served it.
  if (session.impersonator)
    res = new HtmlTransformer().prependToBody(impersonationBanner(session.impersonator)).transform(res);
  if (!res.headers.has("Cache-Control")) {
    try {
      res.headers.set("Cache-Control", "private, no-store");
    } catch {
      // Immutable headers (a fetched response passed through): leave them as they are.
    }
  }
  return res;
}
