/**
 * @module
 * The live channel of a user's tabs: who may join (a session the worker verified from the user's
 * cookie, or a ticket this object minted and spends once), what each socket hears, and the request
 * partyserver is allowed to see, and the bodies of the object's partyserver hooks. A socket's
 * audience is decided here from verified credentials only: the client's connection id (`?_pk=`),
 * query and headers never reach partyserver, so they can name no tag and no stream. Nothing here
 * touches storage: whether a session is active, and spending a ticket, are the caller's.
 */
import type { Connection, ConnectionContext } from "partyserver";
import { jsonError } from "../../client-sdk/core/errors";
import { objectNow } from "../clock";
import { CLOSE_SESSION_INACTIVE, CLOSE_SESSION_REVOKED, encodeMessage, type LiveMessage } from "./messages";
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

function isUpgrade(request: Request): boolean {
  return request.headers.get("Upgrade")?.toLowerCase() === "websocket";
}

/** The credential of an upgrade the worker routed: a verified session, or a checked ticket's nonce. */
function credentialOf(request: Request): LiveCredential {
  const nonce = request.headers.get(TICKET_HEADER);
  if (nonce !== null) return NONCE.test(nonce) ? { kind: "ticket", nonce } : null;
  const sessionId = request.headers.get(SESSION_HEADER);
  if (sessionId === null || !SESSION_ID.test(sessionId)) return null;
  return { kind: "session", sessionId, record: request.headers.get(RECORD_HEADER) === "1" };
}

/** What admitting an upgrade asks of the object: whether a session is active, and spending a ticket. */
export interface Admission {
  isActive(sessionId: string, now: number): boolean;
  /** The session a live ticket was minted for, spent now (single use); null when unknown or expired. */
  spendTicket(nonce: string, now: number): Promise<string | null>;
}

/**
 * The object's `fetch`: admits an upgrade before partyserver sees it. The socket is accepted only
 * with a credential this object confirms (a session the worker verified that is active here, or a
 * live ticket spent now); anything else is refused without a socket. partyserver then sees a
 * request this object built (see `partyRequest`): no query, header or connection id of the client's.
 *
 * partyserver answers a throw during setup (a tag or connection workerd refuses, …) with the
 * stack: sent over a fresh socket when `Upgrade` is exactly `websocket`, else as a 500 body. We
 * pass the token as `WebSocket` (case-insensitive, RFC 6455 §4.1), so such a failure always
 * comes back as a 5xx we replace: a socket closed with 1011 and a generic reason, or a generic
 * 500. The stack goes to the log only.
 */
export async function serveLive(
  request: Request,
  admission: Admission,
  party: (request: Request) => Promise<Response>,
): Promise<Response> {
  const upgrade = isUpgrade(request);
  try {
    const joined = upgrade ? await admit(credentialOf(request), admission) : null;
    if (upgrade && !joined) return refusedUpgrade();
    const response = await party(partyRequest(request, joined));
    if (response.status < 500 || response.webSocket) return response;
    // partyserver's own error answer: its body is the stack (already logged by partyserver).
    await response.body?.cancel();
  } catch (err) {
    console.error("gatehouse: session object fetch failed", err instanceof Error ? err.message : err);
  }
  return upgrade ? closedSocket() : internalError();
}

/** The join an upgrade's credential earns here, or null: a ticket is spent whatever the answer. */
async function admit(credential: LiveCredential, admission: Admission): Promise<LiveState | null> {
  if (!credential) return null;
  const now = objectNow();
  if (credential.kind === "ticket") {
    const sessionId = await admission.spendTicket(credential.nonce, now);
    return sessionId && admission.isActive(sessionId, objectNow()) ? { sessionId, record: false, via: "ticket" } : null;
  }
  return admission.isActive(credential.sessionId, now)
    ? { sessionId: credential.sessionId, record: credential.record, via: "cookie" }
    : null;
}

/** `onConnect`: the socket takes the join the object admitted; without one it is closed. */
export function joinSocket(connection: Connection, ctx: ConnectionContext): void {
  try {
    const joined = joinedOf(ctx.request);
    if (!joined) {
      connection.close(CLOSE_SESSION_INACTIVE, "session inactive");
      return;
    }
    connection.setState(joined);
    // A tab of another site learns that its ticket was taken.
    if (joined.via === "ticket") connection.send(encodeMessage({ type: "live.ready", sessionId: joined.sessionId }));
  } catch (err) {
    // Never partyserver's answer to a throw (the stack, sent over the socket): a generic close.
    console.error("gatehouse: live connection setup failed", err instanceof Error ? err.message : err);
    connection.close(CLOSE_INTERNAL_ERROR, INTERNAL_ERROR_REASON);
  }
}

/** `onError`: logged without detail to the tab, then a generic close. */
export function closeOnError(connection: Connection, error: unknown): void {
  console.error("gatehouse: live connection error", error instanceof Error ? error.message : error);
  try {
    connection.close(CLOSE_INTERNAL_ERROR, INTERNAL_ERROR_REASON);
  } catch {
    // Already closed.
  }
}

/** `onMessage`: a joined socket's `ping` is answered; anything else is ignored. */
export function answerPing(connection: Connection, message: string | ArrayBuffer | ArrayBufferView): void {
  if (message === "ping" && stateOf(connection)) connection.send(encodeMessage({ type: "pong", at: new Date() }));
}

/** The sockets joined to a session (to `sessionId`, or any): every accepted socket, by its admitted state. */
export function* joinedSockets(
  connections: (tag?: string) => Iterable<Connection>,
  sessionId?: string,
): Generator<Connection> {
  for (const connection of sessionId === undefined ? connections() : connections(sessionTag(sessionId))) {
    const joined = stateOf(connection)?.sessionId;
    if (joined && (sessionId === undefined || joined === sessionId)) yield connection;
  }
}

/**
 * Closes every socket whose session is no longer active (expired, or ended by a kill switch the
 * object was told of), and any socket that joined no session: run by the alarm, which fires at the
 * earliest session expiry, so no socket outlives its credential by more than that.
 */
export function closeEnded(
  sockets: readonly WebSocket[],
  joined: Iterable<Connection>,
  isActive: (sessionId: string) => boolean,
): void {
  const keep = new Set<WebSocket>();
  for (const connection of joined) if (isActive(stateOf(connection)!.sessionId)) keep.add(connection);
  // Every socket the runtime holds for this object, partyserver's or not.
  for (const socket of sockets) {
    if (keep.has(socket)) continue;
    try {
      socket.close(CLOSE_SESSION_INACTIVE, "session inactive");
    } catch {
      // Already gone.
    }
  }
}

/**
 * The request partyserver sees, built from scratch: the path, a connection id this object chose
 * (`_pk`: partyserver makes it the socket's first tag, so it must never be the client's), the
 * upgrade (as `WebSocket`: partyserver routes on the lowercased value, and its stack-sending error
 * path matches exactly `websocket`) and the join this object admitted. None of partyserver's
 * control headers (`x-partykit-props`, `x-partykit-room`, …) ever passes.
 */
function partyRequest(request: Request, joined: LiveState | null): Request {
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
function refusedUpgrade(): Response {
  return jsonError(401, "unauthenticated", "Sign in first");
}

/** The answer to an upgrade that failed on our side: accepted, then closed with 1011 and no detail. */
function closedSocket(): Response {
  const { 0: client, 1: server } = new WebSocketPair();
  server.accept();
  server.close(CLOSE_INTERNAL_ERROR, INTERNAL_ERROR_REASON);
  return new Response(null, { status: 101, webSocket: client });
}

function internalError(): Response {
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

/** Tells every socket given that the user's session list changed. */
export function tellSessionsChanged(connections: Iterable<Connection>): void {
  const message: LiveMessage = { type: "sessions.changed", at: new Date() };
  const text = encodeMessage(message);
  for (const connection of connections) connection.send(text);
}
