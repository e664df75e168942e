/**
 * @module
 * The live channel: `/parties/user-sessions/<userId>` upgrades to a WebSocket on that user's
 * `UserSessions` object (a partyserver `Server`). The route decides who may join before any object
 * is reached: a session cookie of that very user, or a ticket signed for that user
 * (`Sec-WebSocket-Protocol: gatehouse-live, gatehouse-ticket.<ticket>`), from this worker's own
 * origin or an allowed app's. Anything else is refused here, so a stranger's socket never wakes or
 * creates an object. The object receives a request this route built from what it verified: no
 * header, query or connection id of the client's. Everything else under `/parties/` is 404.
 */

import type { Application } from "../../../client-sdk/core/application";
import { jsonError } from "../../../client-sdk/core/errors";
import type { UserSessions } from "../../../durable-objects/user-sessions";
import { RECORD_HEADER, SESSION_HEADER, TICKET_HEADER } from "../../../durable-objects/user-sessions";
import { isUserId } from "../ids";
import { type LimitsEnv, liveRefusalLimiter, routeLimiterFor } from "../limits";
import { AuthConfigToken, publicOrigin } from "../provider";
import { LIVE_PROTOCOL, offeredProtocols, verifyLiveTicket } from "../session/live-ticket";
import { SessionManager } from "../session/session-manager";

/** The kebab-case route name partyserver gives the `USER_SESSIONS` binding (what partysocket's `party` names). */
export const LIVE_PARTY = "user-sessions";

/** What the route verified: a session of the path's user (and whether it hears the record), or a ticket's nonce. */
type Join = { sessionId: string; record: boolean } | { nonce: string };

export interface LiveRouteOptions {
  /** This worker's public origin (its callback URL's): its own pages, the only ones that hear the security record. */
  ownOrigin: string;
  /** Origins of the consuming apps whose tabs may join (`AUTH_RETURN_ORIGINS`). */
  allowedOrigins?: readonly string[];
  /**
   * Counts a refused upgrade against the user id in the path; answers a 429 once that id is over
   * its limit. Only refusals count, so a stranger cannot lock a user's own tabs out.
   */
  onRefused?: (request: Request) => Promise<Response | null>;
}

/**
 * The request the session object sees, built from scratch: the upgrade, the path (the user) and
 * the credential this worker verified. No header or query of the browser's passes, so none of
 * partyserver's own (`x-partykit-props`, `_pk`, …) can be supplied by a client.
 */
function objectRequest(url: URL, join: Join): Request {
  const headers: Record<string, string> = { Upgrade: "websocket" };
  if ("nonce" in join) {
    headers[TICKET_HEADER] = join.nonce;
  } else {
    headers[SESSION_HEADER] = join.sessionId;
    if (join.record) headers[RECORD_HEADER] = "1";
  }
  return new Request(new URL(url.pathname, url.origin), { method: "GET", headers });
}

/**
 * 403 for a page of an origin that is neither this worker's nor an allowed app's; null otherwise (a
 * client that is no page sends no `Origin`). A browser cannot fake its page's origin.
 */
export function originRefusal(
  request: Request,
  options: Pick<LiveRouteOptions, "ownOrigin" | "allowedOrigins">,
): Response | null {
  const origin = request.headers.get("Origin");
  if (origin === null || origin === options.ownOrigin || options.allowedOrigins?.includes(origin)) return null;
  return jsonError(403, "origin_not_allowed", "WebSocket connections are accepted from this site only");
}

export async function routeLiveChannel(
  request: Request,
  namespace: DurableObjectNamespace<UserSessions> | undefined,
  sessions: SessionManager,
  options: LiveRouteOptions,
): Promise<Response> {
  const url = new URL(request.url);
  const [, prefix, party, userId, ...rest] = url.pathname.split("/");
  if (prefix !== "parties" || party !== LIVE_PARTY || !namespace || rest.length > 0) {
    return jsonError(404, "not_found", `No route for ${request.method} ${url.pathname}`);
  }
  if (!isUserId(userId)) return jsonError(400, "invalid_user_id", "The user id in the path is not valid");
  if (request.method !== "GET" || request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
    return jsonError(426, "upgrade_required", "This endpoint only accepts WebSocket upgrades");
  }
  const origin = request.headers.get("Origin");
  const ownPage = origin === null || origin === options.ownOrigin;
  const foreign = originRefusal(request, options);
  if (foreign) return foreign;
  const refuse = async (status: 401 | 403, code: string, message: string) =>
    (await options.onRefused?.(request)) ?? jsonError(status, code, message);

  const offered = offeredProtocols(request.headers.get("Sec-WebSocket-Protocol"));
  let join: Join;
  // A ticket, or `?join=ticket`, chooses the ticket path: only a valid ticket gets in there, whatever cookie comes along.
  if (offered.ticket !== null || url.searchParams.get("join") === "ticket") {
    const nonce =
      offered.ticket === null
        ? null
        : await verifyLiveTicket(sessions.signer, offered.ticket, userId, sessions.config.clock());
    if (!nonce) return refuse(401, "invalid_ticket", "This live ticket is not valid");
    join = { nonce };
  } else {
    const session = await sessions.resolveSession(request);
    if (!session) return refuse(401, "unauthenticated", "Sign in first");
    if (session.user.id !== userId) return refuse(403, "forbidden", "This channel belongs to another user");
    // Only this worker's own pages (or a client that is no page) hear the security record.
    join = { sessionId: session.sessionId, record: ownPage };
  }
  const response = await namespace.get(namespace.idFromName(userId)).fetch(objectRequest(url, join));
  if (response.status !== 101 || !offered.live) return response;
  // The client offered subprotocols: the handshake must name the one we speak (RFC 6455 §4.2.2).
  return new Response(null, {
    status: 101,
    webSocket: response.webSocket,
    headers: { "Sec-WebSocket-Protocol": LIVE_PROTOCOL },
  });
}

/**
 * Mounts the channel at `/parties/*`: the `live` rate limit per address on every request, the
 * refusals per user id, and this worker's own origin from its configuration (never the Host).
 */
export function registerLiveChannel<E extends LimitsEnv>(
  app: Application<E>,
  namespace: DurableObjectNamespace<UserSessions> | undefined,
): void {
  const onRefused = liveRefusalLimiter(app);
  // Fixed for the app's container: worked out on the first request, then reused.
  let resolved: LiveRouteOptions | undefined;
  const options = (): LiveRouteOptions =>
    (resolved ??= {
      ownOrigin: publicOrigin(app.container),
      allowedOrigins: app.container.resolve(AuthConfigToken).returnOrigins,
      ...(onRefused ? { onRefused } : {}),
    });
  // The origin first: a page of another site cannot spend its visitor's address budget (the
  // browser sends the handshake from the visitor's address) and so cut their own tabs off.
  app.hono.use("/parties/*", async (c, next) => {
    const foreign = originRefusal(c.req.raw, options());
    if (foreign) return foreign;
    await next();
  });
  const limiter = routeLimiterFor(app, "live", { reportLockouts: false });
  if (limiter) app.hono.use("/parties/*", limiter);
  app.hono.all("/parties/*", (c) =>
    routeLiveChannel(c.req.raw, namespace, app.container.resolve(SessionManager), options()),
  );
}
