/**
 * @module
 * The spec's `handleLogout`: destroys the current session, clears the cookie
 * and redirects. Failures of the store answer a readable page and still clear
 * the cookie; nothing internal reaches the client.
 */
import type { IdentityClient } from "../identity/identity-client";
import type { SessionManager } from "../session/session-manager";
import { authErrorPage } from "./pages";
import { safeReturnTo } from "./return-to";

export interface LogoutOptions {
  /** Also end the provider session (best effort, never blocks local logout). */
  identityClient?: IdentityClient;
  /** Keeps the provider call alive after the response (pass `ctx.waitUntil`). */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** Destroys the current session, clears the cookie, redirects to `redirectTo` (default `/auth/login`). */
export async function handleLogout(
  request: Request,
  sessionManager: SessionManager,
  redirectTo = "/auth/login",
  options: LogoutOptions = {},
): Promise<Response> {
  const location = safeReturnTo(redirectTo, "/auth/login");
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
