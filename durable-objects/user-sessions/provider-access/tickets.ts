/**
 * @module
 * Live tickets: how a tab on another site joins its session's live channel. The session cookie is
 * `SameSite=Lax`, so a page of a consuming app on another site cannot send it to the auth worker's
 * socket; the app mints a ticket over RPC when it renders the page, and the tab presents it in its
 * upgrade (`Sec-WebSocket-Protocol`, never in a URL). The nonce minted here is 32 random bytes,
 * kept only as its SHA-256, bound to one session, single-use, and valid for `TICKET_TTL_MS`; the
 * worker signs it with the user and expiry (workers/auth/session/live-ticket.ts), so an upgrade
 * without a valid one never reaches this object. Storage only (table `live_tickets`, schema.ts).
 */
import { sha256Hex } from "../../../client-sdk/core/digest";
import { randomToken } from "../../../client-sdk/core/encoding";

/** How long a minted ticket can be used. */
export const TICKET_TTL_MS = 2 * 60 * 1000;
/** Tickets an object keeps at most (each page render mints one; expired ones go first). */
const MAX_TICKETS = 1_000;

/** A new ticket for `sessionId`, valid until `now + TICKET_TTL_MS`. */
export async function mintTicket(sql: SqlStorage, sessionId: string, now: number): Promise<string> {
  const ticket = randomToken(32);
  const hash = await sha256Hex(ticket);
  sql.exec("DELETE FROM live_tickets WHERE expires_at <= ?", now);
  sql.exec(
    `DELETE FROM live_tickets WHERE hash IN
       (SELECT hash FROM live_tickets ORDER BY expires_at DESC LIMIT -1 OFFSET ?)`,
    MAX_TICKETS - 1,
  );
  sql.exec(
    "INSERT INTO live_tickets (hash, session_id, expires_at) VALUES (?, ?, ?)",
    hash,
    sessionId,
    now + TICKET_TTL_MS,
  );
  return ticket;
}

/** The session a ticket was minted for, once: the ticket is spent whatever the answer. Null when unknown or expired. */
export async function consumeTicket(sql: SqlStorage, ticket: string, now: number): Promise<string | null> {
  if (typeof ticket !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(ticket)) return null;
  const hash = await sha256Hex(ticket);
  const row = sql
    .exec<{ session_id: string; expires_at: number }>(
      "DELETE FROM live_tickets WHERE hash = ? RETURNING session_id, expires_at",
      hash,
    )
    .toArray()[0];
  if (!row || Number(row.expires_at) <= now) return null;
  return String(row.session_id);
}
