/**
 * @module
 * A SET as a compact JWS: ES256, `typ: secevent+jwt` (RFC 8417 §2.3), the signer's `kid` so a
 * receiver picks the key from our JWKS (RFC 7515 §4.1.4). WebCrypto's ECDSA signature is already
 * the 64-byte r‖s JWS wants (RFC 7518 §3.4). Never signs with anything but the current key.
 */

import { base64url } from "../../client-sdk/core/encoding";
import { SET_TYPE, type SecurityEventToken } from "../../client-sdk/protocol/shared-signals";
import type { SigningKeys } from "./keys";

const encoder = new TextEncoder();

export async function signSet(claims: SecurityEventToken, keys: Pick<SigningKeys, "current">): Promise<string> {
  const header = { alg: "ES256", typ: SET_TYPE, kid: keys.current.kid };
  const input = `${base64url(encoder.encode(JSON.stringify(header)))}.${base64url(encoder.encode(JSON.stringify(claims)))}`;
  const signature = await crypto.subtle.sign(
    { name: "ECDSA", hash: "SHA-256" },
    keys.current.key,
    encoder.encode(input),
  );
  return `${input}.${base64url(signature)}`;
}
