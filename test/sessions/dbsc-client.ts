/**
 * A DBSC reference client written from the W3C text (`w3c/webappsec-dbsc` spec.bs, `#format-jwt`,
 * `#header-secure-session-response`, `#header-sec-secure-session-id`) and from what Chrome's
 * `net/device_bound_sessions` sends (session_binding_utils.cc, registration_fetcher.cc), as cited in
 * /work/notes/dbsc-research.md. It imports nothing of Gatehouse: its own base64url, its own JWS
 * signing over WebCrypto, its own sf-string quoting. A test oracle, not a copy of the code under test.
 */

export type ClientAlg = "ES256" | "RS256";
/** Chrome sends header values raw; the spec types them as sf-strings (quoted). */
export type HeaderForm = "chrome" | "spec";

const encoder = new TextEncoder();

export function b64url(bytes: Uint8Array | ArrayBuffer | string): string {
  const view = typeof bytes === "string" ? encoder.encode(bytes) : new Uint8Array(bytes);
  let binary = "";
  for (const b of view) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const SIGN: Record<ClientAlg, { gen: SubtleCryptoGenerateKeyAlgorithm; sign: SubtleCryptoSignAlgorithm }> = {
  ES256: { gen: { name: "ECDSA", namedCurve: "P-256" }, sign: { name: "ECDSA", hash: "SHA-256" } },
  RS256: {
    gen: {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    sign: { name: "RSASSA-PKCS1-v1_5" },
  },
};

/** A compact JWS over arbitrary header and payload, signed by `key` with `alg`'s parameters. */
export async function signJws(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: CryptoKey,
  params: SubtleCryptoSignAlgorithm,
): Promise<string> {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  // WebCrypto's ECDSA signature is already IEEE P1363 r‖s, which is what JWS ES256 wants (RFC 7518 §3.4).
  const signature = await crypto.subtle.sign(params, key, encoder.encode(input));
  return `${input}.${b64url(signature)}`;
}

/** One browser-held key pair, as Chrome's software key provider would make it. */
export class DbscClient {
  private constructor(
    readonly alg: ClientAlg,
    private readonly keys: CryptoKeyPair,
    /** The public JWK with only the members Chrome sends (jwk_utils.cc: no alg, use or kid). */
    readonly jwk: Record<string, string>,
  ) {}

  static async create(alg: ClientAlg): Promise<DbscClient> {
    const keys = (await crypto.subtle.generateKey(SIGN[alg].gen, true, ["sign", "verify"])) as CryptoKeyPair;
    const full = (await crypto.subtle.exportKey("jwk", keys.publicKey)) as JsonWebKey;
    const jwk: Record<string, string> =
      alg === "ES256" ? { kty: "EC", crv: "P-256", x: full.x!, y: full.y! } : { kty: "RSA", n: full.n!, e: full.e! };
    return new DbscClient(alg, keys, jwk);
  }

  /** Registration proof: header `{alg, typ: "dbsc+jwt", jwk}`, payload `{jti, authorization?}`. */
  registrationProof(challenge: string, authorization?: string): Promise<string> {
    const payload: Record<string, unknown> = { jti: challenge };
    if (authorization !== undefined) payload.authorization = authorization;
    return this.sign({ alg: this.alg, typ: "dbsc+jwt", jwk: this.jwk }, payload);
  }

  /** Refresh proof: the same header without `jwk`, payload `{jti}`. */
  refreshProof(challenge: string): Promise<string> {
    return this.sign({ alg: this.alg, typ: "dbsc+jwt" }, { jti: challenge });
  }

  /** Any header and payload, signed with this client's key. */
  sign(header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string> {
    return signJws(header, payload, this.keys.privateKey, SIGN[this.alg].sign);
  }
}

/** An sf-string (RFC 8941 §4.1.6): quotes, with `\` and `"` escaped. */
export function sfString(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** A header value the way `form` sends it: Chrome raw, the spec as an sf-string. */
export function headerValue(value: string, form: HeaderForm): string {
  return form === "chrome" ? value : sfString(value);
}

/** The request headers of a registration POST (Chrome: no body, `Secure-Session-Response` only). */
export function registrationRequestHeaders(proof: string, form: HeaderForm): Headers {
  return new Headers({ "Secure-Session-Response": headerValue(proof, form) });
}

/** The request headers of a refresh POST: the session id, and the proof when the client has one. */
export function refreshRequestHeaders(sessionId: string, proof: string | null, form: HeaderForm): Headers {
  const headers = new Headers({ "Sec-Secure-Session-Id": headerValue(sessionId, form) });
  if (proof !== null) headers.set("Secure-Session-Response", headerValue(proof, form));
  return headers;
}
