/**
 * The WorkOS webhook signature as the provider computes it: header `WorkOS-Signature:
 * t=<ms timestamp>, v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, the scheme the SDK's
 * `webhooks.constructEvent` checks. WebCrypto only, no imports, so it runs in the local identity
 * provider (Node) and in workerd tests alike. Never logs, stores or returns the secret.
 */

export const WEBHOOK_SIGNATURE_HEADER = "WorkOS-Signature";

/** The `WorkOS-Signature` header value for `body` signed at `timestampMs`. */
export async function signWebhook(body: string, secret: string, timestampMs: number): Promise<string> {
  if (!secret) throw new TypeError("signWebhook: the secret must not be empty");
  const t = String(Math.floor(timestampMs));
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(`${t}.${body}`)));
  let hex = "";
  for (const byte of mac) hex += byte.toString(16).padStart(2, "0");
  return `t=${t}, v1=${hex}`;
}
