/**
 * @module
 * Request-scoped values the auth middleware set for handlers and later
 * middleware: the signed-in user, the session, the current organization.
 * Read them with `currentUser(request)` etc.; they live as long as the request.
 */
import { getRequestValue, RequestKey } from "gatehouse";
import type { ResolvedSession } from "../session/session-manager";
import type { AppUser } from "../types";

export const CurrentSession = new RequestKey<ResolvedSession>("gatehouse.session");
export const CurrentOrganizationSlug = new RequestKey<string | null>("gatehouse.organizationSlug");
export const CsrfTokenKey = new RequestKey<string>("gatehouse.csrfToken");

/** The user `AuthMiddleware` resolved for this request, or null. */
export function currentUser(request: Request): AppUser | null {
  return getRequestValue(request, CurrentSession)?.user ?? null;
}

/** The session `AuthMiddleware` resolved for this request, or null. */
export function currentSession(request: Request): ResolvedSession | null {
  return getRequestValue(request, CurrentSession) ?? null;
}

/** The organization slug `OrgResolver` found for this request (via AuthMiddleware's `orgResolver`), or null. */
export function currentOrganizationSlug(request: Request): string | null {
  return getRequestValue(request, CurrentOrganizationSlug) ?? null;
}
