/**
 * @module
 * Signed live tickets: `<nonce>.<expiresAt>.<signature>`, where the nonce is what the user's session
 * object minted (and spends once) and the signature is HMAC-SHA256 over the purpose, the user id,
 * the nonce and the expiry. The live route checks one before it routes an upgrade, so a socket
 * that presents no valid ticket of that user never wakes, or creates, a session object. It travels
 * in the upgrade's `Sec-WebSocket-Protocol` (`gatehouse-ticket.<ticket>`), never in a URL.
 * Parsing never throws; the signature is never logged.
 */
import type { HmacSigner } from "../crypto";

const PURPOSE = "live-ticket|";
/** Nonce, expiry (canonical decimal: one spelling per number), signature. */
const TICKET = /^([A-Za-z0-9_-]{43})\.(0|[1-9]\d{0,14})\.([A-Za-z0-9_-]{43})$/;

/** The subprotocol a live socket asks for and the server names in its 101 (RFC 6455 §4.2.2). */
export const LIVE_PROTOCOL = "gatehouse-live";
/** The subprotocol entry that carries a ticket: `gatehouse-ticket.<ticket>`. */
export const TICKET_PROTOCOL_PREFIX = "gatehouse-ticket.";

function signed(userId: string, nonce: string, expiresAt: number): string {
  return `${PURPOSE}${userId}|${nonce}|${expiresAt}`;
}

/** The ticket a page carries for `userId`'s channel: the object's nonce, signed with the user and expiry. */
export async function signLiveTicket(
  signer: HmacSigner,
  userId: string,
  minted: { ticket: string; expiresAt: number },
): Promise<string> {
  const signature = await signer.sign(signed(userId, minted.ticket, minted.expiresAt));
  return `${minted.ticket}.${minted.expiresAt}.${signature}`;
}

/** The nonce of a ticket signed for `userId` that has not expired at `now`; null for anything else. */
export async function verifyLiveTicket(
  signer: HmacSigner,
  ticket: string,
  userId: string,
  now: number,
): Promise<string | null> {
  const match = TICKET.exec(ticket);
  if (!match) return null;
  const [, nonce, expiry, signature] = match as unknown as [string, string, string, string];
  const expiresAt = Number(expiry);
  if (!Number.isSafeInteger(expiresAt) || expiresAt <= now) return null;
  return (await signer.verify(signed(userId, nonce, expiresAt), signature)) ? nonce : null;
}

/**
 * What an upgrade's `Sec-WebSocket-Protocol` offers (RFC 6455 §4.1: comma-separated tokens): the
 * ticket entry, if any, and whether the client speaks `gatehouse-live` (then the 101 must name it).
 */
export function offeredProtocols(header: string | null): { ticket: string | null; live: boolean } {
  let ticket: string | null = null;
  let live = false;
  for (const entry of (header ?? "").split(",")) {
    const token = entry.trim();
    if (token === LIVE_PROTOCOL) live = true;
    else if (token.startsWith(TICKET_PROTOCOL_PREFIX) && ticket === null)
      ticket = token.slice(TICKET_PROTOCOL_PREFIX.length);
  }
  return { ticket, live };
}
