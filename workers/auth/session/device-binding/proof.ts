/**
 * @module
 * Verifying a DBSC proof: a compact JWS with header `{typ: "dbsc+jwt", alg, jwk?}` and payload
 * `{jti, authorization?}` (spec `#format-jwt`). At registration the key comes only from the header
 * `jwk`; at refresh only from the key the session object stored (a header `jwk` is ignored). The
 * algorithm is an allow-list (ES256, RS256): `none`, HS256 and the rest are refused before any key is
 * touched. The challenge (`jti`) is offered to the caller only after the signature verifies, so a
 * forged proof cannot spend one. WebCrypto directly: the whole format is three JSON checks and one
 * `verify`, and an explicit allow-list is easier to audit than a general JOSE library's options.
 */
import {
  DBSC_ALGORITHMS,
  DBSC_JWT_TYPE,
  type DbscAlgorithm,
  type DbscPublicJwk,
} from "../../../../client-sdk/protocol/device-binding";
import { fromBase64url, timingSafeEqual } from "../../crypto";
import { ALGORITHM_PARAMS, importVerifyKey, jwkThumbprint, validatePublicJwk } from "./jwk";

export type ProofRefusal =
  | "malformed"
  | "wrong_type"
  | "unsupported_alg"
  | "missing_key"
  | "bad_key"
  | "alg_mismatch"
  | "bad_signature"
  | "missing_jti"
  | "authorization_mismatch"
  | "unknown_challenge";

export interface VerifiedProof {
  alg: DbscAlgorithm;
  /** The key that verified: the header `jwk` at registration, the stored one at refresh. */
  jwk: DbscPublicJwk;
  thumbprint: string;
  /** The challenge the proof answered (already accepted by `acceptChallenge`). */
  jti: string;
}

export type ProofResult = { ok: true; value: VerifiedProof } | { ok: false; reason: ProofRefusal };

export interface ProofOptions {
  /** Absent: a registration proof (key from the header). Present: a refresh proof with this stored key. */
  boundKey?: { jwk: DbscPublicJwk; alg: DbscAlgorithm };
  /** The `authorization` we put in the registration header, which the proof must echo. */
  authorization?: string;
  /**
   * Called once, after the signature verified: true when `jti` is a live challenge we issued for this
   * session (and spends it). Typically the session object's `spendChallenge`.
   */
  acceptChallenge(jti: string): boolean | Promise<boolean>;
}

const decoder = new TextDecoder();

function decodeJson(part: string): Record<string, unknown> | null {
  const bytes = fromBase64url(part);
  if (!bytes) return null;
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Verifies `token` (the `Secure-Session-Response` value, already unquoted). */
export async function verifyProof(token: string, options: ProofOptions): Promise<ProofResult> {
  const parts = token.split(".");
  if (parts.length !== 3 || token.length > 8_192) return { ok: false, reason: "malformed" };
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodeJson(headerPart);
  const payload = decodeJson(payloadPart);
  const signature = fromBase64url(signaturePart);
  if (!header || !payload || !signature) return { ok: false, reason: "malformed" };
  if (header.typ !== DBSC_JWT_TYPE) return { ok: false, reason: "wrong_type" };
  // `crit` names extensions we would have to understand (RFC 7515 §4.1.11): we understand none.
  if (header.crit !== undefined) return { ok: false, reason: "malformed" };
  const alg = header.alg;
  if (typeof alg !== "string" || !(DBSC_ALGORITHMS as readonly string[]).includes(alg)) {
    return { ok: false, reason: "unsupported_alg" };
  }
  const algorithm = alg as DbscAlgorithm;

  let jwk: DbscPublicJwk;
  if (options.boundKey) {
    if (options.boundKey.alg !== algorithm) return { ok: false, reason: "alg_mismatch" };
    jwk = options.boundKey.jwk;
  } else {
    if (header.jwk === undefined) return { ok: false, reason: "missing_key" };
    const valid = validatePublicJwk(header.jwk, algorithm);
    if (!valid.ok) return { ok: false, reason: valid.reason === "alg_mismatch" ? "alg_mismatch" : "bad_key" };
    jwk = valid.jwk;
  }
  const key = await importVerifyKey(jwk, algorithm);
  if (!key) return { ok: false, reason: "bad_key" };

  // ES256 is raw r‖s (RFC 7518 §3.4), never DER; RS256 is as long as the modulus.
  const expectedLength = algorithm === "ES256" ? 64 : (fromBase64url((jwk as { n: string }).n)?.length ?? -1);
  if (signature.length !== expectedLength) return { ok: false, reason: "bad_signature" };
  const signingInput = new TextEncoder().encode(`${headerPart}.${payloadPart}`);
  const verified = await crypto.subtle.verify(ALGORITHM_PARAMS[algorithm].verifyParams, key, signature, signingInput);
  if (!verified) return { ok: false, reason: "bad_signature" };

  const jti = payload.jti;
  if (typeof jti !== "string" || jti === "") return { ok: false, reason: "missing_jti" };
  if (options.authorization !== undefined) {
    const claim = payload.authorization;
    if (typeof claim !== "string" || !timingSafeEqual(claim, options.authorization)) {
      return { ok: false, reason: "authorization_mismatch" };
    }
  }
  if (!(await options.acceptChallenge(jti))) return { ok: false, reason: "unknown_challenge" };
  return { ok: true, value: { alg: algorithm, jwk, thumbprint: await jwkThumbprint(jwk), jti } };
}
