/**
 * @module
 * The live channel: `/parties/user-sessions/<userId>` upgrades to a WebSocket
 * on that user's `UserSessions` object through partyserver. Only this class
 * is routable (partyserver would otherwise reach every Durable Object binding
 * in env); the upgrade must carry a session cookie of that very user, from
 * this site's origin. Everything else under `/parties/` is 404. The object
 * receives a request this route built, never the browser's headers.
 */

import { routePartykitRequest } from "partyserver";
import { jsonError } from "../../../client-sdk/core/errors";
import type { UserSessions } from "../../../durable-objects/user-sessions";
import { RECORD_HEADER, SESSION_HEADER, TICKET_HEADER } from "../../../durable-objects/user-sessions";
import { isUserId } from "../ids";
import type { SessionManager } from "../session/session-manager";

/** The kebab-case route name partyserver derives from the `USER_SESSIONS` binding. */
export const LIVE_PARTY = "user-sessions";

const json = jsonError;

/** partysocket's connection id (`?_pk=`): kept when it is a plain id, dropped otherwise. */
const CONNECTION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The request the session object sees, built from scratch: the upgrade, the path (the user), the
 * connection id and the session id this worker verified. No header of the browser's passes, so
 * none of partyserver's own (`x-partykit-props`, `x-partykit-room`, …) can be supplied by a client.
 */
function objectRequest(url: URL, join: { sessionId: string; ownPage: boolean } | "ticket"): Request {
  const target = new URL(url.pathname, url.origin);
  const connectionId = url.searchParams.get("_pk");
  if (connectionId !== null && CONNECTION_ID.test(connectionId)) target.searchParams.set("_pk", connectionId);
  const headers: Record<string, string> = { Upgrade: "websocket" };
  if (join === "ticket") {
    // No session yet: the tab's first message must be a ticket its app minted (see tickets.ts).
    headers[TICKET_HEADER] = "1";
  } else {
    headers[SESSION_HEADER] = join.sessionId;
    // Only this worker's own pages (or a client that is no page) hear the security record.
    if (join.ownPage) headers[RECORD_HEADER] = "1";
  }
  return new Request(target, { method: "GET", headers });
}

export async function routeLiveChannel(
  request: Request,
  namespace: DurableObjectNamespace<UserSessions> | undefined,
  sessions: SessionManager,
  options: { allowedOrigins?: string[] } = {},
): Promise<Response> {
  const url = new URL(request.url);
  const [, prefix, party, name, ...rest] = url.pathname.split("/");
  if (prefix !== "parties" || party !== LIVE_PARTY || !namespace || rest.length > 0) {
    return json(404, "not_found", `No route for ${request.method} ${url.pathname}`);
  }
  if (!isUserId(name)) return json(400, "invalid_user_id", "The user id in the path is not valid");
  if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
    return json(426, "upgrade_required", "This endpoint only accepts WebSocket upgrades");
  }
  const origin = request.headers.get("Origin");
  if (origin !== null && origin !== url.origin && !options.allowedOrigins?.includes(origin)) {
    return json(403, "origin_not_allowed", "WebSocket connections are accepted from this site only");
  }
  const response = await routePartykitRequest(request, { USER_SESSIONS: namespace } as unknown as Cloudflare.Env, {
    onBeforeConnect: async (req, lobby) => {
      const ownPage = origin === null || origin === url.origin;
      // A page of a consuming app joins with a ticket (`?join=ticket`; from another site the
      // SameSite=Lax cookie could not come along anyway), whatever cookie the browser sends.
      const hasCookie = (await sessions.sessionIdFromCookieHeader(req.headers.get("Cookie"))) !== null;
      if (origin !== null && (url.searchParams.get("join") === "ticket" || (!hasCookie && !ownPage))) {
        return objectRequest(url, "ticket");
      }
      const session = await sessions.resolveSession(req);
      if (!session) return json(401, "unauthenticated", "Sign in first");
      if (session.user.id !== lobby.name) return json(403, "forbidden", "This channel belongs to another user");
      return objectRequest(url, { sessionId: session.sessionId, ownPage });
    },
  });
  return response ?? json(404, "not_found", `No route for ${request.method} ${url.pathname}`);
}
