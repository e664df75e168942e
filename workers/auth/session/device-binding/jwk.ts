/**
 * @module
 * The public keys DBSC binds: validation of the JWK a registration proof carries (EC P-256 or RSA
 * of at least 2048 bits, public members only), its RFC 7638 thumbprint, and its import for
 * verification. A JWK with a private member (`d`, `p`, `q`, …) is refused, never imported.
 */
import type { DbscAlgorithm, DbscPublicJwk } from "../../../../client-sdk/protocol/device-binding";
import { fromBase64url, sha256Base64url } from "../../crypto";

export type JwkResult =
  | { ok: true; jwk: DbscPublicJwk; alg: DbscAlgorithm }
  | { ok: false; reason: "not_object" | "private_member" | "unsupported_key" | "weak_key" | "alg_mismatch" };

/** Members a private key has and a public one must not (RFC 7518 §6.2.2, §6.3.2). */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];
/** Members of a public key we tolerate beside the required ones (Chrome sends none of them). */
const TOLERATED = ["kty", "crv", "x", "y", "n", "e", "alg", "use", "kid", "key_ops", "ext"];
export const MIN_RSA_BITS = 2048;
/** Largest RSA modulus accepted, in bits (a bigger one only costs verification time). */
export const MAX_RSA_BITS = 4096;

/** Validates `value` as the public key for `alg`; returns the required members only. */
export function validatePublicJwk(value: unknown, alg: DbscAlgorithm): JwkResult {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, reason: "not_object" };
  const jwk = value as Record<string, unknown>;
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) return { ok: false, reason: "private_member" };
  if (Object.keys(jwk).some((m) => !TOLERATED.includes(m))) return { ok: false, reason: "unsupported_key" };
  if (jwk.alg !== undefined && jwk.alg !== alg) return { ok: false, reason: "alg_mismatch" };
  if (jwk.kty === "EC") {
    if (alg !== "ES256") return { ok: false, reason: "alg_mismatch" };
    if (jwk.crv !== "P-256") return { ok: false, reason: "unsupported_key" };
    const x = typeof jwk.x === "string" ? fromBase64url(jwk.x) : null;
    const y = typeof jwk.y === "string" ? fromBase64url(jwk.y) : null;
    if (x?.length !== 32 || y?.length !== 32) return { ok: false, reason: "unsupported_key" };
    return { ok: true, alg, jwk: { kty: "EC", crv: "P-256", x: jwk.x as string, y: jwk.y as string } };
  }
  if (jwk.kty === "RSA") {
    if (alg !== "RS256") return { ok: false, reason: "alg_mismatch" };
    const n = typeof jwk.n === "string" ? fromBase64url(jwk.n) : null;
    // Chrome's keys use 65537 (AQAB); any other exponent is refused, as is a modulus past 4096 bits.
    if (!n || jwk.e !== "AQAB" || n[0] === 0 || n.length * 8 > MAX_RSA_BITS) {
      return { ok: false, reason: "unsupported_key" };
    }
    if (n.length * 8 < MIN_RSA_BITS) return { ok: false, reason: "weak_key" };
    return { ok: true, alg, jwk: { kty: "RSA", n: jwk.n as string, e: jwk.e as string } };
  }
  return { ok: false, reason: "unsupported_key" };
}

/** RFC 7638: SHA-256 over the required members in lexicographic order, no whitespace; base64url. */
export async function jwkThumbprint(jwk: DbscPublicJwk): Promise<string> {
  const canonical =
    jwk.kty === "EC"
      ? JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })
      : JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n });
  return sha256Base64url(canonical);
}

/** WebCrypto parameters of each algorithm: import and verify. */
export const ALGORITHM_PARAMS: Record<
  DbscAlgorithm,
  { importParams: SubtleCryptoImportKeyAlgorithm; verifyParams: SubtleCryptoSignAlgorithm }
> = {
  ES256: { importParams: { name: "ECDSA", namedCurve: "P-256" }, verifyParams: { name: "ECDSA", hash: "SHA-256" } },
  RS256: {
    importParams: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    verifyParams: { name: "RSASSA-PKCS1-v1_5" },
  },
};

/** Imports a validated public JWK for verification; null when WebCrypto refuses it (not on the curve …). */
export async function importVerifyKey(jwk: DbscPublicJwk, alg: DbscAlgorithm): Promise<CryptoKey | null> {
  try {
    return await crypto.subtle.importKey("jwk", jwk, ALGORITHM_PARAMS[alg].importParams, false, ["verify"]);
  } catch {
    return null;
  }
}
