/**
 * @module
 * The session cookie value: `<token>.<signature>`, where token is 256 random
 * bits and signature is HMAC-SHA256("session|" + token), both base64url.
 * The public session id is SHA-256(token) in hex. Parsing never throws.
 */
import { type HmacSigner, type RandomSource, randomToken, sha256Hex } from "../crypto";

const PART = /^[A-Za-z0-9_-]{43}$/;
const PURPOSE = "session|";

export async function issueSessionToken(
  signer: HmacSigner,
  random?: RandomSource,
): Promise<{ cookieValue: string; sessionId: string }> {
  const token = randomToken(32, random);
  const signature = await signer.sign(PURPOSE + token);
  return { cookieValue: `${token}.${signature}`, sessionId: await sha256Hex(token) };
}

/** The public session id for a cookie value, or null if it is malformed or its signature is wrong. */
export async function verifySessionToken(signer: HmacSigner, cookieValue: string): Promise<string | null> {
  if (typeof cookieValue !== "string" || cookieValue.length !== 87) return null;
  const dot = cookieValue.indexOf(".");
  if (dot !== 43) return null;
  const token = cookieValue.slice(0, dot);
  const signature = cookieValue.slice(dot + 1);
  if (!PART.test(token) || !PART.test(signature)) return null;
  if (!(await signer.verify(PURPOSE + token, signature))) return null;
  return sha256Hex(token);
}
