/**
 * @module
 * The transmitter's signing keys: a secret env variable (default `SSF_SIGNING_KEYS`) holding a JSON
 * array of private EC P-256 JWKs, each with a `kid`. The first signs; all are published, so a new
 * key goes first while the old one stays listed until receivers' SETs signed by it have aged out
 * (rotation without a gap). Anything else fails closed, naming the variable and the key's index,
 * never a value. WebCrypto only: ES256 is one `crypto.subtle.sign` call (its ECDSA signature is
 * already the JWS r‖s form), so no JOSE library ships in the worker.
 */
import { fromBase64url } from "../../client-sdk/core/encoding";
import { SsfTransmitterError } from "./errors";

/** Default name of the secret that holds the keys. */
export const SSF_SIGNING_KEYS = "SSF_SIGNING_KEYS";

/** The public half of one key, as the JWKS publishes it (RFC 7517 §4, RFC 7518 §6.2.1). */
export interface PublicSigningJwk {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  kid: string;
  alg: "ES256";
  use: "sig";
}

/** A checked key: its public JWK and the private JWK WebCrypto imports. */
export interface SigningKeySpec {
  kid: string;
  publicJwk: PublicSigningJwk;
  privateJwk: JsonWebKey;
}

export type SigningKeysCheck =
  | { ok: true; keys: SigningKeySpec[] }
  | { ok: false; rule: "required" | "not_signing_keys" | "low_variety"; reason: string };

/** Fewer distinct characters than this in `d` cannot be a random scalar (a placeholder). */
const MIN_DISTINCT = 8;
const KID = /^[\x21-\x7e]{1,128}$/;

/**
 * Checks the variable's value (pure, synchronous): a non-empty JSON array of private P-256 JWKs,
 * `kid` unique, `alg` (when given) ES256, `use` (when given) sig, coordinates and scalar 32 bytes.
 */
export function checkSigningKeys(value: unknown, variable = SSF_SIGNING_KEYS): SigningKeysCheck {
  if (typeof value !== "string" || value.trim() === "") {
    return { ok: false, rule: "required", reason: `${variable} is required when ssf is configured` };
  }
  const refuse = (reason: string, rule: "not_signing_keys" | "low_variety" = "not_signing_keys"): SigningKeysCheck => ({
    ok: false,
    rule,
    reason: `${variable}: ${reason}`,
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return refuse("is not JSON (a JSON array of private EC P-256 JWKs)");
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    return refuse("must be a non-empty JSON array of private EC P-256 JWKs");
  }
  const keys: SigningKeySpec[] = [];
  for (const [index, jwk] of parsed.entries()) {
    const at = `key ${index}`;
    if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) return refuse(`${at} is not a JWK object`);
    const k = jwk as Record<string, unknown>;
    if (k.kty !== "EC" || k.crv !== "P-256") {
      return refuse(`${at} is not an EC P-256 key (kty EC, crv P-256: ES256 is the only algorithm signed with)`);
    }
    if (k.alg !== undefined && k.alg !== "ES256") return refuse(`${at} names alg ${String(k.alg)}, not ES256`);
    if (k.use !== undefined && k.use !== "sig") return refuse(`${at} is not a signing key (use must be sig)`);
    if (typeof k.kid !== "string" || !KID.test(k.kid)) return refuse(`${at} has no kid (1-128 visible characters)`);
    if (keys.some((other) => other.kid === k.kid)) return refuse(`${at} repeats kid ${k.kid}`);
    for (const member of ["x", "y", "d"] as const) {
      const text = k[member];
      const bytes = typeof text === "string" ? fromBase64url(text) : null;
      if (bytes?.length !== 32) {
        return refuse(
          member === "d"
            ? `${at} (${k.kid}) has no private scalar d: publish-only keys cannot sign`
            : `${at} (${k.kid}) has no 32-byte ${member} coordinate`,
        );
      }
    }
    if (new Set(k.d as string).size < MIN_DISTINCT) {
      return refuse(`${at} (${k.kid}) has a private scalar with too few distinct characters`, "low_variety");
    }
    const { x, y, d, kid } = k as { x: string; y: string; d: string; kid: string };
    keys.push({
      kid,
      publicJwk: { kty: "EC", crv: "P-256", x, y, kid, alg: "ES256", use: "sig" },
      privateJwk: { kty: "EC", crv: "P-256", x, y, d, ext: false },
    });
  }
  return { ok: true, keys };
}

/** The keys ready to sign: the current signer first, every key's public JWK. */
export interface SigningKeys {
  /** Signs with the first key. */
  current: { kid: string; key: CryptoKey };
  /** Every configured key, public members only, in the configured order. */
  jwks: { keys: PublicSigningJwk[] };
}

const imported = new Map<string, Promise<SigningKeys>>();

/**
 * The keys of `value` (the variable's text), imported once per isolate and value. Each private key
 * must match its published public point: a signature made with `d` is verified with `x`/`y` before
 * the key is used, so a pasted pair that does not belong together fails here, naming the variable.
 * Throws `SsfTransmitterError("signing_keys_invalid")`.
 */
export function loadSigningKeys(value: unknown, variable = SSF_SIGNING_KEYS): Promise<SigningKeys> {
  const check = checkSigningKeys(value, variable);
  if (!check.ok) return Promise.reject(invalid(check.reason));
  const text = value as string;
  let keys = imported.get(text);
  if (!keys) {
    keys = importAll(check.keys, variable);
    // A failure is not cached: the error names the variable; a fixed secret takes effect next time.
    keys.catch(() => imported.delete(text));
    imported.set(text, keys);
  }
  return keys;
}

async function importAll(specs: SigningKeySpec[], variable: string): Promise<SigningKeys> {
  const probe = new TextEncoder().encode("gatehouse ssf key check");
  const algorithm = { name: "ECDSA", namedCurve: "P-256" } as const;
  const signing = { name: "ECDSA", hash: "SHA-256" } as const;
  const privates: CryptoKey[] = [];
  for (const [index, spec] of specs.entries()) {
    let privateKey: CryptoKey;
    let publicKey: CryptoKey;
    try {
      privateKey = await crypto.subtle.importKey("jwk", spec.privateJwk, algorithm, false, ["sign"]);
      const { kty, crv, x, y } = spec.publicJwk;
      publicKey = await crypto.subtle.importKey("jwk", { kty, crv, x, y }, algorithm, false, ["verify"]);
    } catch {
      throw invalid(`${variable}: key ${index} (${spec.kid}) is not a valid P-256 key pair`);
    }
    const signature = await crypto.subtle.sign(signing, privateKey, probe);
    if (!(await crypto.subtle.verify(signing, publicKey, signature, probe))) {
      throw invalid(`${variable}: key ${index} (${spec.kid}): its d does not belong to its x and y`);
    }
    privates.push(privateKey);
  }
  return {
    current: { kid: specs[0]!.kid, key: privates[0]! },
    jwks: { keys: specs.map((spec) => spec.publicJwk) },
  };
}

function invalid(message: string): SsfTransmitterError {
  return new SsfTransmitterError("signing_keys_invalid", { status: 503, message });
}
