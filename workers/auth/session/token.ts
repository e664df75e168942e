/**
 * @module
 * The session cookie: its value `<token>.<signature>`, where token is 256 random
 * bits and signature is HMAC-SHA256("session|" + token), both base64url; the
 * public session id is SHA-256(token) in hex; and its Set-Cookie headers
 * (HttpOnly, Secure, SameSite, Path=/, Max-Age the absolute lifetime). Parsing
 * never throws; a cookie value is never logged.
 */
import { buildSetCookie, parseCookie } from "../cookies";
import { type HmacSigner, type RandomSource, randomToken, sha256Hex } from "../crypto";
import type { ResolvedSessionConfig } from "./config";

const PART = /^[A-Za-z0-9_-]{43}$/;
const PURPOSE = "session|";

type CookieConfig = Pick<ResolvedSessionConfig, "cookieName" | "secure" | "sameSite" | "domain" | "absoluteTimeout">;

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

/** The verified public session id carried by a Cookie header, or null. */
export async function sessionIdOf(
  signer: HmacSigner,
  cookieName: string,
  cookieHeader: string | null | undefined,
): Promise<string | null> {
  if (!cookieHeader) return null;
  const value = parseCookie(cookieHeader)[cookieName];
  if (!value) return null;
  return verifySessionToken(signer, value);
}

/** Set-Cookie value carrying a session cookie (or, with an empty value and `maxAge` 0, deleting it). */
export function sessionSetCookie(config: CookieConfig, cookieValue: string, maxAge = config.absoluteTimeout): string {
  return buildSetCookie(config.cookieName, cookieValue, {
    path: "/",
    httpOnly: true,
    secure: config.secure,
    sameSite: config.sameSite,
    maxAge,
    ...(config.domain ? { domain: config.domain } : {}),
  });
}
