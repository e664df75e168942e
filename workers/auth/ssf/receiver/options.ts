/**
 * @module
 * `ssf.transmitters`: the upstream SSF transmitters whose pushed SETs this auth worker accepts
 * (issue 32, receiver). Checked once when `createAuthWorker` runs; every error names the option.
 * Off by default: without `ssf.transmitters`, no route is registered. Never holds private keys.
 */
import type { JSONWebKeySet } from "jose";

/** One upstream transmitter (an identity provider, a gateway) allowed to push SETs here. */
export interface SsfTransmitterOption {
  /** Its `iss` exactly as it signs it (an https URL, or http on loopback for development). */
  issuer: string;
  /** Where its public keys are (JWKS, fetched and cached); or `jwks` inline. Exactly one of the two. */
  jwksUri?: string;
  /** Its public keys inline (a JWK set). */
  jwks?: JSONWebKeySet;
  /** The `aud` it puts in SETs for us (a SET must name it). */
  audience: string;
  /**
   * The issuer whose `iss_sub` subjects name our user ids (WorkOS: `https://api.workos.com`, whose
   * user ids are ours). Absent: `iss_sub` subjects are matched by nobody (acknowledged, no action).
   */
  issSubIssuer?: string;
}

/** The receiver's part of the `ssf` option (the transmitter side keeps its own keys beside it). */
export interface SsfReceiverOptions {
  transmitters?: SsfTransmitterOption[];
}

export interface ResolvedTransmitter {
  issuer: string;
  audience: string;
  keys: { jwksUri: URL } | { jwks: JSONWebKeySet };
  issSubIssuer: string | null;
  /** The issuer's host: the revocation actor's label. */
  label: string;
}

const KEY_TYPES = new Set(["EC", "RSA"]);

/** The transmitters, checked; an empty list when `ssf.transmitters` is absent (the receiver is off). */
export function resolveSsfTransmitters(value: unknown, where = "ssf.transmitters"): ResolvedTransmitter[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length === 0) {
    throw new TypeError(`${where} must be a non-empty list of { issuer, jwksUri | jwks, audience }`);
  }
  const seen = new Set<string>();
  return value.map((entry: unknown, i) => {
    const at = `${where}[${i}]`;
    if (typeof entry !== "object" || entry === null) throw new TypeError(`${at} must be an object`);
    const t = entry as Partial<SsfTransmitterOption>;
    const issuer = urlOf(t.issuer, `${at}.issuer`);
    if (seen.has(t.issuer as string)) throw new TypeError(`${at}.issuer names a transmitter twice`);
    seen.add(t.issuer as string);
    if (typeof t.audience !== "string" || t.audience.length === 0 || t.audience.length > 512) {
      throw new TypeError(`${at}.audience must be a non-empty string`);
    }
    if ((t.jwksUri === undefined) === (t.jwks === undefined)) {
      throw new TypeError(`${at} needs exactly one of jwksUri or jwks`);
    }
    let keys: ResolvedTransmitter["keys"];
    if (t.jwksUri !== undefined) {
      keys = { jwksUri: urlOf(t.jwksUri, `${at}.jwksUri`) };
    } else {
      const set = t.jwks as { keys?: unknown };
      if (typeof set !== "object" || set === null || !Array.isArray(set.keys) || set.keys.length === 0) {
        throw new TypeError(`${at}.jwks must be a JWK set { keys: [...] } with at least one key`);
      }
      for (const [k, key] of (set.keys as Record<string, unknown>[]).entries()) {
        if (typeof key !== "object" || key === null || !KEY_TYPES.has(key.kty as string)) {
          throw new TypeError(`${at}.jwks.keys[${k}] must be an EC or RSA public key`);
        }
        // A private part in configuration would be a leak waiting to happen: refuse it.
        if ("d" in key) throw new TypeError(`${at}.jwks.keys[${k}] holds a private key; give the public key only`);
      }
      keys = { jwks: t.jwks as JSONWebKeySet };
    }
    const issSubIssuer = t.issSubIssuer ?? null;
    if (issSubIssuer !== null && (typeof issSubIssuer !== "string" || issSubIssuer.length === 0)) {
      throw new TypeError(`${at}.issSubIssuer must be a non-empty string`);
    }
    return { issuer: t.issuer as string, audience: t.audience, keys, issSubIssuer, label: issuer.host };
  });
}

function urlOf(value: unknown, at: string): URL {
  let url: URL;
  try {
    url = new URL(value as string);
  } catch {
    throw new TypeError(`${at} must be a URL`);
  }
  const loopback = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new TypeError(`${at} must be https (http only on loopback)`);
  }
  return url;
}
