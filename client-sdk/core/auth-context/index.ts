/**
 * @module
 * The request values every auth middleware shares: the signed-in session
 * (public id and user) and the current organization slug. `AuthMiddleware`
 * (gatehouse/auth, in the auth worker) and `ServiceAuthMiddleware` (gatehouse,
 * in consuming workers) set the same keys, so `RoleMiddleware` and
 * `currentUser` work behind either. It must never import auth-worker runtime code.
 */
import type { AppUser } from "../../../workers/auth/types";
import { getRequestValue, RequestKey } from "../middleware";

/** What an auth middleware stores for a request: at least the public session id and the user. */
export interface RequestSession {
  sessionId: string;
  user: AppUser;
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
