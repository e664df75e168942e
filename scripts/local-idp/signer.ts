/**
 * Access tokens and PKCE for the local identity provider: an RS256 key pair generated at start,
 * published as a JWKS, signs short-lived access tokens with AuthKit's claims (`act` during an
 * impersonation; `auth_time` unless the provider is set not to send it, like WorkOS's emulator).
 * The private key never leaves this module and is never written to disk or logged.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { ulid } from "./ids.ts";

/** Access tokens expire this long after they are issued (AuthKit's default is 5 minutes). */
export const ACCESS_TOKEN_TTL_S = 5 * 60;

export interface AccessTokenInput {
  issuer: string;
  userId: string;
  sessionId: string;
  organizationId: string | null;
  role: string | null;
  permissions: readonly string[];
  /** The person's last active authentication (ms), signed as `auth_time` (seconds); null: no such claim. */
  authTime: number | null;
  /** Who impersonates the user, signed as `act: { sub }` like AuthKit; null when nobody does. */
  impersonatorEmail: string | null;
}

export interface Signer {
  /** The public half, as served at `/sso/jwks/<client id>`. */
  readonly jwks: { keys: JWK[] };
  sign(input: AccessTokenInput): Promise<string>;
}

export async function createSigner(now: () => number): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { modulusLength: 2048 });
  const kid = `sso_oidc_key_pair_${ulid(now())}`;
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  return {
    jwks: { keys: [jwk] },
    async sign(input) {
      const iat = Math.floor(now() / 1000);
      const claims: Record<string, unknown> = { sid: input.sessionId };
      if (input.authTime !== null) claims.auth_time = Math.floor(input.authTime / 1000);
      if (input.impersonatorEmail !== null) claims.act = { sub: input.impersonatorEmail };
      if (input.organizationId !== null) claims.org_id = input.organizationId;
      if (input.role !== null) {
        claims.role = input.role;
        claims.roles = [input.role];
        claims.permissions = [...input.permissions];
      }
      return new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
        .setIssuer(input.issuer)
        .setSubject(input.userId)
        .setJti(ulid(now()))
        .setIssuedAt(iat)
        .setExpirationTime(iat + ACCESS_TOKEN_TTL_S)
        .sign(privateKey);
    },
  };
}

/** base64url(SHA-256(verifier)), the S256 code challenge of RFC 7636. */
export function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

/** RFC 7636 §4.1: 43–128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** Checks a code verifier against its S256 challenge in constant time. */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const actual = Buffer.from(s256(verifier));
  const expected = Buffer.from(challenge);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Constant-time string equality for secrets (API key, client secret). */
export function secretEquals(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}
