/**
 * @module
 * The few WebCrypto primitives the auth module needs: random tokens,
 * SHA-256, HMAC-SHA256 sign/verify with key rotation, base64url and a
 * constant-time comparison. Nothing here ever logs or returns key material.
 */

import { sha256Hex } from "../../../client-sdk/core/digest";
import {
  base64url,
  defaultRandom,
  fromBase64url,
  type RandomSource,
  randomToken,
} from "../../../client-sdk/core/encoding";

export { base64url, defaultRandom, fromBase64url, type RandomSource, randomToken };

const encoder = new TextEncoder();
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** `length` random bytes, base64url-encoded. 32 bytes = 256 bits. */

export { sha256Hex };

export async function sha256Base64url(text: string): Promise<string> {
  return base64url(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/** Constant-time string equality (time depends only on the length of `a`). */
export function timingSafeEqual(a: string, b: string): boolean {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  let diff = ab.length ^ bb.length;
  for (let i = 0; i < ab.length; i++) diff |= ab[i]! ^ (bb[i] ?? 0);
  return diff === 0;
}

/**
 * HMAC-SHA256 with key rotation: the first secret signs, every secret
 * verifies. Keys are imported once per instance.
 */
export class HmacSigner {
  readonly #keys: Promise<CryptoKey[]>;

  constructor(secrets: string | readonly string[]) {
    const list = typeof secrets === "string" ? [secrets] : [...secrets];
    if (list.length === 0 || list.some((s) => typeof s !== "string" || s.length < 16)) {
      throw new TypeError("HMAC secrets must be non-empty strings of at least 16 characters");
    }
    this.#keys = Promise.all(
      list.map((s) =>
        crypto.subtle.importKey("raw", encoder.encode(s), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]),
      ),
    );
  }

  /** base64url HMAC of `data` under the first (current) secret. */
  async sign(data: string): Promise<string> {
    const [key] = await this.#keys;
    return base64url(await crypto.subtle.sign("HMAC", key!, encoder.encode(data)));
  }

  /** True when `signature` is a valid HMAC of `data` under any secret. WebCrypto's verify is constant-time. */
  async verify(data: string, signature: string): Promise<boolean> {
    // Canonical encoding only: the last of 43 base64url characters carries 2 unused bits,
    // so four spellings decode to the same bytes; accept just the one we issue (unused bits zero).
    if (signature.length !== 43 || B64URL.indexOf(signature[42]!) % 4 !== 0) return false;
    const bytes = fromBase64url(signature);
    if (bytes?.length !== 32) return false;
    const payload = encoder.encode(data);
    for (const key of await this.#keys) {
      if (await crypto.subtle.verify("HMAC", key, bytes, payload)) return true;
    }
    return false;
  }
}
