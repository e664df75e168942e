/**
 * @module
 * Checks a provider webhook with the WorkOS SDK (`webhooks.verifyHeader`, then
 * `webhooks.constructEvent` to deserialize): the `WorkOS-Signature` header is
 * `t=<ms timestamp>, v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, compared in
 * constant time by the SDK (WebCrypto in workerd). Returns a tagged result;
 * never throws for any input.
 */
import { SignatureVerificationException, type WorkOS } from "@workos-inc/node";

export const SIGNATURE_HEADER = "WorkOS-Signature";
/** How far a signature's timestamp may be from now, either way. */
export const DEFAULT_TOLERANCE_MS = 5 * 60 * 1000;

export type VerifyFailure = "invalid_signature" | "stale_timestamp" | "malformed_body";

export type Verified = { ok: true; event: unknown } | { ok: false; reason: VerifyFailure };

export interface VerifyInput {
  payload: string;
  sigHeader: string;
  secret: string;
  toleranceMs: number;
  now: number;
}

const TIMESTAMP = /^\d{1,16}$/;

export async function verifyWebhook(webhooks: WorkOS["webhooks"], input: VerifyInput): Promise<Verified> {
  let timestamp: string | undefined;
  try {
    [timestamp] = webhooks.getTimestampAndSignatureHash(input.sigHeader);
  } catch {
    return { ok: false, reason: "invalid_signature" };
  }
  if (timestamp === undefined || !TIMESTAMP.test(timestamp)) return { ok: false, reason: "invalid_signature" };
  // The SDK only refuses old timestamps; a far-future one would make a captured delivery replayable for long.
  if (Math.abs(input.now - Number(timestamp)) > input.toleranceMs) return { ok: false, reason: "stale_timestamp" };
  const options = {
    payload: input.payload,
    sigHeader: input.sigHeader,
    secret: input.secret,
    tolerance: input.toleranceMs,
  };
  try {
    await webhooks.verifyHeader(options);
  } catch {
    return { ok: false, reason: "invalid_signature" };
  }
  let json: unknown;
  try {
    json = JSON.parse(input.payload);
  } catch {
    return { ok: false, reason: "malformed_body" };
  }
  try {
    return { ok: true, event: await webhooks.constructEvent(options) };
  } catch (err) {
    if (err instanceof SignatureVerificationException) return { ok: false, reason: "invalid_signature" };
    // Verified JSON the SDK could not deserialize (its deserializers expect WorkOS's own shapes):
    // keep only the type, so an event type we do not handle is still ignored, not refused.
    const type = typeof json === "object" && json !== null ? (json as { event?: unknown }).event : undefined;
    return { ok: true, event: { event: type } };
  }
}
