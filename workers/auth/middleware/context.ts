/**
 * @module
 * Request-scoped values the auth middleware set for handlers and later
 * middleware: the signed-in user, the session, the current organization.
 * Read them with `currentUser(request)` etc.; they live as long as the request.
 * The session and organization keys live in the client SDK (client-sdk/auth-context, public
 * as `gatehouse-workers/client`), so the service-binding middleware of consuming workers sets
 * the very same keys.
 */
import {
  CurrentOrganizationSlug,
  CurrentSession,
  currentOrganizationSlug,
  currentUser,
} from "../../../client-sdk/auth-context";
import { getRequestValue, RequestKey } from "../../../client-sdk/core/middleware";
import type { ResolvedSession } from "../session/session-manager";

export { CurrentOrganizationSlug, CurrentSession, currentOrganizationSlug, currentUser };
export const CsrfTokenKey = new RequestKey<string>("gatehouse.csrfToken");

/**
 * The session `AuthMiddleware` resolved for this request, or null. A session
 * set by `ServiceAuthMiddleware` (no stored record) is not a `ResolvedSession`: null.
 */
export function currentSession(request: Request): ResolvedSession | null {
  const session = getRequestValue(request, CurrentSession);
  return session && "record" in session ? (session as ResolvedSession) : null;
}
