/**
 * @module
 * The live channel of a user's tabs: what the session object tells open
 * sockets (revoked, updated, list changed), the request partyserver is allowed
 * to see, and the generic answers that replace partyserver's own error answers
 * (which carry the stack). Nothing here touches storage.
 */
import type { Connection } from "partyserver";
import { jsonError } from "../../client-sdk/core/errors";
import type { Membership } from "./memberships";
import { CLOSE_SESSION_REVOKED, encodeMessage, type LiveMessage } from "./messages";
import type { RevocationReason } from "./schema";

/** Header the auth worker sets on an authenticated upgrade; never trusted from a browser (the worker overwrites it). */
export const SESSION_HEADER = "x-gatehouse-session";
/**
 * Set (to `1`) by the worker's live route on a connection from its own pages: only those hear the
 * security record (`timeline.appended`: IP, place, device). Tabs of other allowed origins (the
 * consuming apps) hear session changes only.
 */
export const RECORD_HEADER = "x-gatehouse-record";
/** The connection tag of those tabs. */
export const RECORD_TAG = "record";
/**
 * Set (to `1`) by the worker's live route on a connection without a session cookie (a tab of a
 * consuming app on another site): it joins no session until its first message is a valid ticket.
 */
export const TICKET_HEADER = "x-gatehouse-ticket";
/** The connection tag of tabs still waiting for their ticket. */
export const PENDING_TAG = "pending";
/** Tabs an object lets wait for their ticket at once; a newer one closes the oldest. */
export const MAX_PENDING = 32;
/** How long a tab may wait before its ticket arrives (the script sends it on open). */
export const PENDING_TTL_MS = 10_000;

/** WebSocket close code for a failure on our side (RFC 6455 1011); the reason is always generic. */
export const CLOSE_INTERNAL_ERROR = 1011;
export const INTERNAL_ERROR_REASON = "internal error";

/**
 * The request partyserver sees: only the upgrade (as `WebSocket`: partyserver routes on the
 * lowercased value, and its stack-sending error path matches exactly `websocket`) and our session
 * header. None of its control headers (`x-partykit-props`, `x-partykit-room`, …) ever passes.
 */
export function partyRequest(request: Request): { request: Request; upgrade: boolean } {
  const upgrade = request.headers.get("Upgrade")?.toLowerCase() === "websocket";
  const headers = new Headers();
  const sessionId = request.headers.get(SESSION_HEADER);
  if (upgrade) headers.set("Upgrade", "WebSocket");
  if (sessionId) headers.set(SESSION_HEADER, sessionId);
  if (request.headers.get(RECORD_HEADER) === "1") headers.set(RECORD_HEADER, "1");
  if (request.headers.get(TICKET_HEADER) === "1") headers.set(TICKET_HEADER, "1");
  return { request: new Request(request.url, { method: request.method, headers }), upgrade };
}

/** The answer to an upgrade that failed on our side: accepted, then closed with 1011 and no detail. */
export function closedSocket(): Response {
  const { 0: client, 1: server } = new WebSocketPair();
  server.accept();
  server.close(CLOSE_INTERNAL_ERROR, INTERNAL_ERROR_REASON);
  return new Response(null, { status: 101, webSocket: client });
}

export function internalError(): Response {
  return jsonError(500, "internal_error", "Internal Server Error");
}

/** Tells and closes every socket of the revoked sessions (every socket with `everyone`); returns how many. */
export function notifyRevoked(
  connections: Iterable<Connection<{ sessionId: string }>>,
  ids: readonly string[],
  reason: RevocationReason,
  at: number,
  everyone: boolean,
): number {
  let closed = 0;
  const revokedAt = new Date(at);
  const targets = new Set(ids);
  for (const connection of connections) {
    const sessionId = connection.state?.sessionId ?? connection.tags.find((t) => t.startsWith("s:"))?.slice(2);
    if (!everyone && (!sessionId || !targets.has(sessionId))) continue;
    try {
      connection.send(encodeMessage({ type: "session.revoked", sessionId: sessionId ?? "", reason, revokedAt }));
      connection.close(CLOSE_SESSION_REVOKED, "session revoked");
      closed++;
    } catch {
      // The socket is already gone; nothing to tell it.
    }
  }
  return closed;
}

/** Tells the session's sockets its memberships changed. */
export function notifyUpdated(
  connections: Iterable<Connection>,
  sessionId: string,
  memberships: Membership[],
  at: number,
): void {
  const message = encodeMessage({ type: "session.updated", sessionId, memberships, updatedAt: new Date(at) });
  for (const connection of connections) {
    try {
      connection.send(message);
    } catch {
      // The socket is already gone.
    }
  }
}

/** The message every tab gets when the user's session list changed. */
export function sessionsChanged(): string {
  const message: LiveMessage = { type: "sessions.changed", at: new Date() };
  return encodeMessage(message);
}
