/**
 * @module
 * The two short-lived values of device binding: the challenge a proof must sign (≥128 random bits,
 * base64url, so the spec's quoted and Chrome's raw header forms are the same characters) and the
 * bound cookie's value, which any isolate verifies without the session object: HMAC-SHA256 over a
 * purpose prefix of its own (`dbsc-cookie|`, so no other signed value of Gatehouse can pass for one),
 * the session id and the expiry. Clock and randomness are injected; nothing here stores anything.
 */
import { type HmacSigner, type RandomSource, randomToken } from "../../crypto";

/** Bytes of a challenge: 256 bits (the spec asks for at least 128). */
export const CHALLENGE_BYTES = 32;
/** How long a bound cookie proves the device: above Chrome's refresh quota (6 signings per 9 minutes). */
export const BOUND_COOKIE_TTL_MS = 10 * 60 * 1000;

const PURPOSE = "dbsc-cookie|";
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** A fresh challenge: `CHALLENGE_BYTES` random bytes, base64url. */
export function mintChallenge(random?: RandomSource): string {
  return randomToken(CHALLENGE_BYTES, random);
}

export type BoundCookieResult =
  | { ok: true; sessionId: string; expiresAt: number }
  | { ok: false; reason: "malformed" | "bad_signature" | "expired" };

/** Signs and checks bound-cookie values: `<session id>.<expires at, ms>.<HMAC>`. */
export class BoundCookie {
  readonly #signer: HmacSigner;
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(signer: HmacSigner, options: { now?: () => number; ttlMs?: number } = {}) {
    this.#signer = signer;
    this.#now = options.now ?? Date.now;
    this.#ttlMs = options.ttlMs ?? BOUND_COOKIE_TTL_MS;
  }

  /** A value for `sessionId` (base64url, at most 128 characters) valid for the TTL from now. */
  async issue(sessionId: string): Promise<{ value: string; expiresAt: number }> {
    if (!SESSION_ID.test(sessionId)) throw new TypeError("bound cookie: the session id must be base64url");
    const expiresAt = this.#now() + this.#ttlMs;
    const signature = await this.#signer.sign(`${PURPOSE}${sessionId}|${expiresAt}`);
    return { value: `${sessionId}.${expiresAt}.${signature}`, expiresAt };
  }

  /** The session a value names, when its signature holds and it has not expired. */
  async verify(value: string | null | undefined): Promise<BoundCookieResult> {
    const parts = typeof value === "string" ? value.split(".") : [];
    if (parts.length !== 3) return { ok: false, reason: "malformed" };
    const [sessionId, expiry, signature] = parts as [string, string, string];
    if (!SESSION_ID.test(sessionId) || !/^[1-9][0-9]{0,15}$/.test(expiry)) return { ok: false, reason: "malformed" };
    if (!(await this.#signer.verify(`${PURPOSE}${sessionId}|${expiry}`, signature))) {
      return { ok: false, reason: "bad_signature" };
    }
    const expiresAt = Number(expiry);
    if (expiresAt <= this.#now()) return { ok: false, reason: "expired" };
    return { ok: true, sessionId, expiresAt };
  }
}
