/**
 * @module
 * Checks one pushed SET (RFC 8417) from a configured transmitter and says what is wrong in RFC 8935
 * §2.4 terms. Order: well-formed compact JWS → `iss` a configured transmitter → `alg` on the
 * allow-list (ES256, RS256: never `none` or a shared-secret HS*) → signature with the transmitter's
 * key by `kid` → `typ` → `aud` → `iat` window → `events`. Pure apart from the key fetch; never throws
 * except for an unreachable JWKS (the caller answers 503 so the transmitter retries).
 */
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from "jose";
import { type PushErrorCode, SET_TYPE, type SecurityEventToken } from "../../../../client-sdk/protocol/shared-signals";
import type { ResolvedTransmitter } from "./options";
import { KeysUnavailable, RemoteKeys } from "./remote-keys";

export type { PushErrorCode };

/**
 * A refusal of a SET whose signature did verify (its `aud` or its `iat` window failed): its
 * transmitter really sent it, so its subject can be told of the refusal (`signed`).
 */
export interface SignedRefusal {
  set: Pick<SecurityEventToken, "iss" | "jti" | "sub_id" | "events">;
  transmitter: ResolvedTransmitter;
  outcome: "expired" | "wrong_audience";
}

export type Verified =
  | { ok: true; set: SecurityEventToken; transmitter: ResolvedTransmitter }
  | { ok: false; err: PushErrorCode; description: string; signed?: SignedRefusal };

/** The only signing algorithms accepted (asymmetric; no `none`, no HS*: the key is public). */
export const ALGORITHMS = ["ES256", "RS256"] as const;

export interface VerifyOptions {
  now: number;
  /** How far `iat` may lie in the future (clock skew). Default 60 s. */
  skewSeconds?: number;
  /** How old `iat` may be. Default 300 s (also how long a `jti` is remembered). */
  maxAgeSeconds?: number;
}

export const DEFAULT_SKEW_SECONDS = 60;
export const DEFAULT_MAX_AGE_SECONDS = 300;

/** Fixed descriptions: they say which check failed, never a key, a claim's value or a stack. */
const FAIL = {
  malformed: ["invalid_request", "The request body is not a signed SET in JWS compact serialization"],
  issuer: ["invalid_issuer", "The SET issuer is not a transmitter this recipient accepts"],
  alg: ["authentication_failed", "The SET is not signed with an accepted algorithm (ES256 or RS256)"],
  key: ["invalid_key", "The SET is not signed with a key the transmitter publishes"],
  signature: ["authentication_failed", "The SET signature does not verify"],
  typ: ["invalid_request", 'The SET header "typ" must be "secevent+jwt"'],
  audience: ["invalid_audience", "The SET audience does not name this recipient"],
  iat: ["invalid_request", 'The SET "iat" is missing, in the future or too old'],
  claims: ["invalid_request", 'The SET lacks a valid "jti", "events" or subject'],
} as const satisfies Record<string, readonly [PushErrorCode, string]>;

type Refused = Verified & { ok: false };

function fail(which: keyof typeof FAIL): Refused {
  const [err, description] = FAIL[which];
  return { ok: false, err, description };
}

/** Key sets per transmitter, built once (a remote one caches and refetches by `now`: remote-keys.ts). */
const keySets = new WeakMap<ResolvedTransmitter, JWTVerifyGetKey | RemoteKeys>();

function keySetOf(t: ResolvedTransmitter, now: number): JWTVerifyGetKey {
  let set = keySets.get(t);
  if (!set) {
    set = "jwks" in t.keys ? createLocalJWKSet(t.keys.jwks) : new RemoteKeys(t.keys.jwksUri);
    keySets.set(t, set);
  }
  const keys = set;
  return keys instanceof RemoteKeys ? (header, token) => keys.getKey(header, token, now) : keys;
}

export async function verifySet(
  token: string,
  transmitters: readonly ResolvedTransmitter[],
  options: VerifyOptions,
): Promise<Verified> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let unverified: JWTPayload;
  try {
    if (token.split(".").length !== 3) return fail("malformed");
    header = decodeProtectedHeader(token);
    unverified = decodeJwt(token);
  } catch {
    return fail("malformed");
  }
  const transmitter = transmitters.find((t) => t.issuer === unverified.iss);
  if (!transmitter) return fail("issuer");
  if (!(ALGORITHMS as readonly string[]).includes(header.alg ?? "")) return fail("alg");
  const skew = options.skewSeconds ?? DEFAULT_SKEW_SECONDS;
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySetOf(transmitter, options.now), {
      algorithms: [...ALGORITHMS],
      issuer: transmitter.issuer,
      // RFC 8417 §2.3 makes `typ` a MAY, but a MUST where a SET could be taken for another JWT; an
      // identity provider's keys also sign ID tokens, so we require it (jose accepts the long form too).
      typ: SET_TYPE,
      clockTolerance: skew,
      currentDate: new Date(options.now),
    }));
  } catch (err) {
    // jose checks the time claims after the signature: the claims it hands back are the transmitter's.
    const timeWindow =
      err instanceof errors.JWTExpired ||
      (err instanceof errors.JWTClaimValidationFailed && err.claim !== "typ" && err.claim !== "iss");
    return timeWindow ? withSigned(fail("iat"), err.payload, transmitter, "expired") : classify(err);
  }
  const aud = payload.aud;
  const audiences = Array.isArray(aud) ? aud : typeof aud === "string" ? [aud] : [];
  if (!audiences.includes(transmitter.audience)) {
    return withSigned(fail("audience"), payload, transmitter, "wrong_audience");
  }
  const now = Math.floor(options.now / 1000);
  const maxAge = options.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS;
  const iat = payload.iat;
  if (typeof iat !== "number" || !Number.isFinite(iat) || iat > now + skew || iat < now - maxAge - skew) {
    return withSigned(fail("iat"), payload, transmitter, "expired");
  }
  const events = (payload as { events?: unknown }).events;
  if (typeof payload.jti !== "string" || payload.jti.length === 0 || payload.jti.length > 256) return fail("claims");
  if (typeof events !== "object" || events === null || Array.isArray(events) || Object.keys(events).length === 0) {
    return fail("claims");
  }
  for (const value of Object.values(events)) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return fail("claims");
  }
  return { ok: true, set: payload as unknown as SecurityEventToken, transmitter };
}

/** A refusal that names the signed SET when its `jti` and `events` are usable (else the refusal alone). */
function withSigned(
  refused: Refused,
  claims: JWTPayload,
  transmitter: ResolvedTransmitter,
  outcome: SignedRefusal["outcome"],
): Verified {
  const events = (claims as { events?: unknown }).events;
  if (typeof claims.jti !== "string" || claims.jti.length === 0 || claims.jti.length > 256) return refused;
  if (typeof events !== "object" || events === null || Array.isArray(events)) return refused;
  const set = {
    iss: transmitter.issuer,
    jti: claims.jti,
    sub_id: (claims as { sub_id?: SecurityEventToken["sub_id"] }).sub_id as SecurityEventToken["sub_id"],
    events: events as SecurityEventToken["events"],
  };
  return { ...refused, signed: { set, transmitter, outcome } };
}

function classify(err: unknown): Refused {
  if (err instanceof KeysUnavailable) throw err;
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) return fail("key");
  if (err instanceof errors.JWSSignatureVerificationFailed) return fail("signature");
  if (err instanceof errors.JOSEAlgNotAllowed) return fail("alg");
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === "typ") return fail("typ");
    if (err.claim === "iss") return fail("issuer");
    return fail("iat"); // exp / nbf / iat as jose reads them: the time window
  }
  if (err instanceof errors.JWTExpired) return fail("iat");
  if (err instanceof errors.JOSEError) return fail("malformed");
  // Not a verdict on the SET (nothing of jose's): not the sender's fault either.
  throw new KeysUnavailable();
}
