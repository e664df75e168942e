/**
 * @module
 * Signing of the security-event webhook: `Gatehouse-Signature: t=<ms>, v1=<hex HMAC-SHA256(secret,
 * "<t>.<raw body>")>` and `Gatehouse-Event-Id: <event id>` (the idempotency key: a retried delivery
 * carries the same one). The session objects sign with `signSecurityEvent`; a receiver verifies
 * with `verifySecurityEvent` (constant-time compare, timestamp tolerance). WebCrypto only.
 */
import type { SecurityEvent } from "../protocol/security-record";

export const SECURITY_EVENT_SIGNATURE_HEADER = "Gatehouse-Signature";
export const SECURITY_EVENT_ID_HEADER = "Gatehouse-Event-Id";
/** A delivery older or newer than this is refused as a replay. */
export const SECURITY_EVENT_TOLERANCE_MS = 5 * 60 * 1000;

const encoder = new TextEncoder();

async function hmacHex(secret: string, data: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(data)));
  let hex = "";
  for (const byte of mac) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** The `Gatehouse-Signature` header value for `body` signed at `timestampMs`. */
export async function signSecurityEvent(body: string, secret: string, timestampMs: number): Promise<string> {
  if (!secret) throw new TypeError("signSecurityEvent: the secret must not be empty");
  const t = String(Math.floor(timestampMs));
  return `t=${t}, v1=${await hmacHex(secret, `${t}.${body}`)}`;
}

export type SecurityEventVerdict =
  | { ok: true; timestamp: number; event: SecurityEvent }
  | {
      ok: false;
      reason:
        | "missing_signature"
        | "malformed_signature"
        | "stale_timestamp"
        | "invalid_signature"
        | "invalid_event"
        | "event_id_mismatch";
    };

/**
 * Checks a delivery's signature header against its raw body and answers the signed event. Pass
 * `eventId` (the `Gatehouse-Event-Id` header, which is not signed) to refuse a delivery whose
 * header does not name the signed event; dedupe on `verdict.event.id`, never on the header alone.
 *
 * @example
 * ```ts
 * const body = await request.text();
 * const verdict = await verifySecurityEvent(body, request.headers.get("Gatehouse-Signature"), env.SECRET, {
 *   eventId: request.headers.get("Gatehouse-Event-Id"),
 * });
 * if (!verdict.ok) return new Response(verdict.reason, { status: 400 });
 * const event = verdict.event; // dedupe on event.id
 * ```
 */
export async function verifySecurityEvent(
  body: string,
  header: string | null,
  secret: string,
  options: { now?: number; toleranceMs?: number; eventId?: string | null } = {},
): Promise<SecurityEventVerdict> {
  if (typeof secret !== "string" || secret === "") {
    throw new TypeError("verifySecurityEvent: the secret must not be empty (SECURITY_EVENTS_WEBHOOK_SECRET)");
  }
  if (!header) return { ok: false, reason: "missing_signature" };
  const parts = Object.fromEntries(
    header.split(",").map((part) => {
      const eq = part.indexOf("=");
      return [part.slice(0, eq).trim(), part.slice(eq + 1).trim()];
    }),
  );
  const t = parts.t;
  const v1 = parts.v1;
  if (!t || !/^\d{1,16}$/.test(t) || !v1 || !/^[0-9a-f]{64}$/.test(v1))
    return { ok: false, reason: "malformed_signature" };
  const timestamp = Number(t);
  const now = options.now ?? Date.now();
  if (Math.abs(now - timestamp) > (options.toleranceMs ?? SECURITY_EVENT_TOLERANCE_MS)) {
    return { ok: false, reason: "stale_timestamp" };
  }
  const expected = await hmacHex(secret, `${t}.${body}`);
  let diff = 0;
  for (let i = 0; i < 64; i++) diff |= expected.charCodeAt(i) ^ v1.charCodeAt(i);
  if (diff !== 0) return { ok: false, reason: "invalid_signature" };
  const event = parseEvent(body);
  if (!event) return { ok: false, reason: "invalid_event" };
  if (options.eventId !== undefined && options.eventId !== event.id) return { ok: false, reason: "event_id_mismatch" };
  return { ok: true, timestamp, event };
}

/** The signed body as an event, or null when it is not one (checked: what receivers rely on). */
function parseEvent(body: string): SecurityEvent | null {
  try {
    const value = JSON.parse(body) as Partial<SecurityEvent> | null;
    const ok =
      typeof value === "object" &&
      value !== null &&
      typeof value.id === "string" &&
      typeof value.type === "string" &&
      typeof value.userId === "string" &&
      typeof value.at === "number";
    return ok ? (value as SecurityEvent) : null;
  } catch {
    return null;
  }
}
