/**
 * @module
 * The live channel of a user's tabs: who may join (a session the worker verified from the user's
 * cookie, or a ticket this object minted and spends once), what each socket hears, and the request
 * partyserver is allowed to see. A socket's audience is decided here from verified credentials
 * only: the client's connection id (`?_pk=`), query and headers never reach partyserver, so they
 * can name no tag and no stream. Nothing here touches storage.
 */
import type { Connection } from "partyserver";
import { jsonError } from "../../client-sdk/core/errors";
import { CLOSE_SESSION_REVOKED, encodeMessage, type LiveMessage } from "./messages";
import type { Membership } from "./organization-controls/memberships";
import type { RevocationReason } from "./schema";

/** Set by the worker's live route: the session it resolved from the user's cookie. Never a browser's header (the route builds the request). */
export const SESSION_HEADER = "x-gatehouse-session";
/**
 * Set (to `1`) by the worker's live route beside `SESSION_HEADER` for a page of its own origin (or
 * a client that is no page): only those sockets hear the security record (`timeline.appended`:
 * IP, place, device). Tabs of consuming apps hear session changes only.
 */
export const RECORD_HEADER = "x-gatehouse-record";
/**
 * Set by the worker's live route: the nonce of a live ticket whose signature, user and expiry the
 * worker checked. The object spends it (single use) and joins the socket to the ticket's session.
 */
export const TICKET_HEADER = "x-gatehouse-ticket";
/** The object's own header to partyserver: the join it admitted (JSON `LiveState`). */
const JOINED_HEADER = "x-gatehouse-joined";

/** WebSocket close code for a failure on our side (RFC 6455 1011); the reason is always generic. */
export const CLOSE_INTERNAL_ERROR = 1011;
export const INTERNAL_ERROR_REASON = "internal error";

/** What every accepted socket carries (its hibernation attachment): the session it joined and whether it hears the record. */
export interface LiveState {
  sessionId: string;
  record: boolean;
  via: "cookie" | "ticket";
}

/** What an upgrade presents, as the worker verified it; null without a credential. */
export type LiveCredential =
  | { kind: "session"; sessionId: string; record: boolean }
  | { kind: "ticket"; nonce: string }
  | null;

const NONCE = /^[A-Za-z0-9_-]{43}$/;
const SESSION_ID = /^[\x21-\x7e]{1,128}$/;

export function isUpgrade(request: Request): boolean {
  return request.headers.get("Upgrade")?.toLowerCase() === "websocket";
}

/** The credential of an upgrade the worker routed: a verified session, or a checked ticket's nonce. */
export function credentialOf(request: Request): LiveCredential {
  const nonce = request.headers.get(TICKET_HEADER);
  if (nonce !== null) return NONCE.test(nonce) ? { kind: "ticket", nonce } : null;
  const sessionId = request.headers.get(SESSION_HEADER);
  if (sessionId === null || !SESSION_ID.test(sessionId)) return null;
  return { kind: "session", sessionId, record: request.headers.get(RECORD_HEADER) === "1" };
}

/**
 * The request partyserver sees, built from scratch: the path, a connection id this object chose
 * (`_pk`: partyserver makes it the socket's first tag, so it must never be the client's), the
 * upgrade (as `WebSocket`: partyserver routes on the lowercased value, and its stack-sending error
 * path matches exactly `websocket`) and the join this object admitted. None of partyserver's
 * control headers (`x-partykit-props`, `x-partykit-room`, …) ever passes.
 */
export function partyRequest(request: Request, joined: LiveState | null): Request {
  const url = new URL(request.url);
  const target = new URL(url.pathname, url.origin);
  const headers = new Headers();
  if (joined) {
    target.searchParams.set("_pk", `c-${crypto.randomUUID()}`);
    headers.set("Upgrade", "WebSocket");
    headers.set(JOINED_HEADER, JSON.stringify(joined));
  }
  return new Request(target, { method: request.method, headers });
}

/** The join this object admitted for a connection being set up (see `partyRequest`); null for anything else. */
export function joinedOf(request: Request): LiveState | null {
  const raw = request.headers.get(JOINED_HEADER);
  if (raw === null) return null;
  const joined = JSON.parse(raw) as LiveState;
  return typeof joined.sessionId === "string" ? joined : null;
}

/** The tags of a socket: only its session's, chosen from the admitted join (never from the client). */
export function liveTags(joined: LiveState | null): string[] {
  return joined ? [sessionTag(joined.sessionId)] : [];
}

export function sessionTag(sessionId: string): string {
  return `s:${sessionId}`;
}

/** The joined session of a socket, from its attachment (hibernation keeps it). */
export function stateOf(connection: Connection): LiveState | null {
  const state = connection.state as Partial<LiveState> | null;
  return state && typeof state.sessionId === "string" ? (state as LiveState) : null;
}

/** An upgrade without a credential this object accepts: no socket, no detail. */
export function refusedUpgrade(): Response {
  return jsonError(401, "unauthenticated", "Sign in first");
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

/** Tells and closes every socket of the revoked sessions (every joined socket with `everyone`); returns how many. */
export function notifyRevoked(
  connections: Iterable<Connection>,
  ids: readonly string[],
  reason: RevocationReason,
  at: number,
  everyone: boolean,
): number {
  let closed = 0;
  const revokedAt = new Date(at);
  const targets = new Set(ids);
  for (const connection of connections) {
    const sessionId = stateOf(connection)?.sessionId;
    if (!sessionId || (!everyone && !targets.has(sessionId))) continue;
    try {
      connection.send(encodeMessage({ type: "session.revoked", sessionId, reason, revokedAt }));
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
