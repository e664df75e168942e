/**
 * Device binding (issue 30, DBSC), the worker's door: proofs from the reference client
 * (dbsc-client.ts, built from the spec and Chrome's wire behaviour, not from our code), headers in
 * Chrome's raw and the spec's quoted forms, `Secure-Session-Skipped`, the bound cookie on an
 * injected clock, and the session instructions against Chrome's validation traps.
 */
import { describe, expect, it } from "vitest";
import { DBSC_HEADERS } from "../../client-sdk/protocol/device-binding";
import { HmacSigner } from "../../workers/auth/crypto";
import {
  BoundCookie,
  buildSessionConfig,
  challengeHeader,
  jwkThumbprint,
  mintChallenge,
  type ProofOptions,
  readSessionId,
  readSessionResponse,
  readSkipped,
  registrationHeader,
  validatePublicJwk,
  verifyProof,
} from "../../workers/auth/session/device-binding";
import {
  b64url,
  type ClientAlg,
  DbscClient,
  refreshRequestHeaders,
  registrationRequestHeaders,
  signJws,
} from "./dbsc-client";

/** Accepts exactly `issued`, once (what the object's spendChallenge does, in memory). */
function once(...issued: string[]): ProofOptions["acceptChallenge"] {
  const live = new Set(issued);
  return (jti) => live.delete(jti);
}

const RFC7638_KEY = {
  kty: "RSA",
  n: "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
  e: "AQAB",
  alg: "RS256",
  kid: "2011-04-29",
};

describe.each<ClientAlg>(["ES256", "RS256"])("a %s proof", (alg) => {
  it("registration: verifies with the header jwk and yields the key and its thumbprint", async () => {
    const client = await DbscClient.create(alg);
    const challenge = mintChallenge();
    const result = await verifyProof(await client.registrationProof(challenge), { acceptChallenge: once(challenge) });
    expect(result).toMatchObject({ ok: true, value: { alg, jwk: client.jwk, jti: challenge } });
    if (!result.ok) return;
    expect(result.value.thumbprint).toBe(await jwkThumbprint(result.value.jwk));
    expect(result.value.thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("registration: a signature by another key than the header jwk is refused", async () => {
    const [client, other] = [await DbscClient.create(alg), await DbscClient.create(alg)];
    const challenge = mintChallenge();
    const forged = await other.sign({ alg, typ: "dbsc+jwt", jwk: client.jwk }, { jti: challenge });
    let asked = false;
    const result = await verifyProof(forged, { acceptChallenge: () => (asked = true) });
    expect(result).toEqual({ ok: false, reason: "bad_signature" });
    expect(asked).toBe(false); // a forged proof never spends a challenge
  });

  it("a jti that is not an issued challenge is refused; an issued one is accepted once", async () => {
    const client = await DbscClient.create(alg);
    const challenge = mintChallenge();
    const accept = once(challenge);
    const stranger = await client.registrationProof(mintChallenge());
    expect(await verifyProof(stranger, { acceptChallenge: accept })).toEqual({
      ok: false,
      reason: "unknown_challenge",
    });
    const proof = await client.registrationProof(challenge);
    expect((await verifyProof(proof, { acceptChallenge: accept })).ok).toBe(true);
    expect(await verifyProof(proof, { acceptChallenge: accept })).toEqual({ ok: false, reason: "unknown_challenge" });
  });

  it("refresh: verifies with the stored key (a header jwk is ignored) and is refused with another", async () => {
    const [client, other] = [await DbscClient.create(alg), await DbscClient.create(alg)];
    const boundKey = { jwk: validatePublicJwkOrThrow(client.jwk, alg), alg };
    const challenge = mintChallenge();
    const proof = await client.refreshProof(challenge);
    expect(await verifyProof(proof, { boundKey, acceptChallenge: once(challenge) })).toMatchObject({
      ok: true,
      value: { jwk: client.jwk, jti: challenge },
    });
    const byOther = await other.refreshProof(challenge);
    expect(await verifyProof(byOther, { boundKey, acceptChallenge: once(challenge) })).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    // The other key announcing itself in the header changes nothing at refresh.
    const announced = await other.sign({ alg, typ: "dbsc+jwt", jwk: other.jwk }, { jti: challenge });
    expect(await verifyProof(announced, { boundKey, acceptChallenge: once(challenge) })).toEqual({
      ok: false,
      reason: "bad_signature",
    });
  });

  it("refuses a wrong typ and a mismatched authorization", async () => {
    const client = await DbscClient.create(alg);
    const challenge = mintChallenge();
    const jwt = await client.sign({ alg, typ: "JWT", jwk: client.jwk }, { jti: challenge });
    expect(await verifyProof(jwt, { acceptChallenge: once(challenge) })).toEqual({ ok: false, reason: "wrong_type" });
    const proof = await client.registrationProof(challenge, "code-1");
    const options = { acceptChallenge: once(challenge) };
    expect(await verifyProof(proof, { ...options, authorization: "code-2" })).toEqual({
      ok: false,
      reason: "authorization_mismatch",
    });
    expect((await verifyProof(proof, { ...options, authorization: "code-1" })).ok).toBe(true);
  });
});

function validatePublicJwkOrThrow(jwk: unknown, alg: ClientAlg) {
  const valid = validatePublicJwk(jwk, alg);
  if (!valid.ok) throw new Error(valid.reason);
  return valid.jwk;
}

describe("algorithms and keys outside the allow-list", () => {
  it("alg none (the spec's, not Chrome's) is refused", async () => {
    const challenge = mintChallenge();
    const unsigned = `${b64url(JSON.stringify({ alg: "none", typ: "dbsc+jwt" }))}.${b64url(JSON.stringify({ jti: challenge }))}.`;
    expect(readSessionResponse(unsigned)).toEqual({ ok: false, reason: "malformed" }); // no signature
    expect(await verifyProof(unsigned, { acceptChallenge: once(challenge) })).toEqual({
      ok: false,
      reason: "unsupported_alg",
    });
    const withFakeSig = `${unsigned}AAAA`;
    expect(await verifyProof(withFakeSig, { acceptChallenge: once(challenge) })).toEqual({
      ok: false,
      reason: "unsupported_alg",
    });
  });

  it("HS256 (a MAC keyed with public material) is refused", async () => {
    const client = await DbscClient.create("ES256");
    const challenge = mintChallenge();
    const secret = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(JSON.stringify(client.jwk)),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const hs = await signJws({ alg: "HS256", typ: "dbsc+jwt", jwk: client.jwk }, { jti: challenge }, secret, {
      name: "HMAC",
    });
    expect(await verifyProof(hs, { acceptChallenge: once(challenge) })).toEqual({
      ok: false,
      reason: "unsupported_alg",
    });
  });

  it("an ES256 header with an RSA key, a private member or a 1024-bit RSA key is refused", async () => {
    const [ec, rsa] = [await DbscClient.create("ES256"), await DbscClient.create("RS256")];
    expect(validatePublicJwk(rsa.jwk, "ES256")).toEqual({ ok: false, reason: "alg_mismatch" });
    expect(validatePublicJwk({ ...ec.jwk, d: "AAAA" }, "ES256")).toEqual({ ok: false, reason: "private_member" });
    const small = (await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    const { n, e } = (await crypto.subtle.exportKey("jwk", small.publicKey)) as JsonWebKey;
    expect(validatePublicJwk({ kty: "RSA", n, e }, "RS256")).toEqual({ ok: false, reason: "weak_key" });
    // Only the exponent 65537 (Chrome's): e = 1 would make any "signature" verify; e = 3 is refused too.
    for (const exponent of ["AQ", "Aw", "AQAAAQ"]) {
      expect(validatePublicJwk({ ...rsa.jwk, e: exponent }, "RS256")).toEqual({ ok: false, reason: "unsupported_key" });
    }
    expect(validatePublicJwk(rsa.jwk, "RS256")).toMatchObject({ ok: true });
    const challenge = mintChallenge();
    const mixed = await ec.sign({ alg: "ES256", typ: "dbsc+jwt", jwk: rsa.jwk }, { jti: challenge });
    expect(await verifyProof(mixed, { acceptChallenge: once(challenge) })).toEqual({
      ok: false,
      reason: "alg_mismatch",
    });
  });

  it("the thumbprint is RFC 7638's own example (§3.1), optional members ignored", async () => {
    const valid = validatePublicJwk(RFC7638_KEY, "RS256");
    expect(valid.ok).toBe(true);
    if (valid.ok) expect(await jwkThumbprint(valid.jwk)).toBe("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs");
  });
});

describe("headers", () => {
  it("Secure-Session-Response and Sec-Secure-Session-Id parse in Chrome's raw and the spec's quoted form", async () => {
    const client = await DbscClient.create("ES256");
    const proof = await client.refreshProof(mintChallenge());
    const sessionId = mintChallenge();
    for (const form of ["chrome", "spec"] as const) {
      const registration = registrationRequestHeaders(proof, form);
      expect(readSessionResponse(registration.get(DBSC_HEADERS.response))).toEqual({ ok: true, value: proof });
      const refresh = refreshRequestHeaders(sessionId, proof, form);
      expect(readSessionId(refresh.get(DBSC_HEADERS.sessionId))).toEqual({ ok: true, value: sessionId });
      expect(readSessionResponse(refresh.get(DBSC_HEADERS.response))).toEqual({ ok: true, value: proof });
    }
    expect(readSessionId(refreshRequestHeaders("7", null, "chrome").get(DBSC_HEADERS.sessionId))).toEqual({
      ok: true,
      value: "7",
    });
    expect(readSessionResponse(null)).toEqual({ ok: false, reason: "missing" });
    expect(readSessionResponse('"unterminated')).toEqual({ ok: false, reason: "malformed" });
    expect(readSessionResponse("not a jwt")).toEqual({ ok: false, reason: "malformed" });
    expect(readSessionId('"a\\"b"')).toEqual({ ok: false, reason: "malformed" }); // quotes in an id
  });

  it("Secure-Session-Skipped: each reason with its session, an unknown token kept, malformed refused", () => {
    // The example of Chrome's unit test (session_service_impl_unittest.cc).
    const chrome = 'unreachable;session_identifier="SessionId", quota_exceeded;session_identifier="SessionId2"';
    expect(readSkipped(chrome)).toEqual({
      ok: true,
      value: [
        { reason: "unreachable", sessionIdentifier: "SessionId" },
        { reason: "quota_exceeded", sessionIdentifier: "SessionId2" },
      ],
    });
    expect(readSkipped('server_error;session_identifier="a",later_reason;session_identifier="b"')).toEqual({
      ok: true,
      value: [
        { reason: "server_error", sessionIdentifier: "a" },
        { reason: "unknown", token: "later_reason", sessionIdentifier: "b" },
      ],
    });
    expect(readSkipped('"a string";session_identifier="x", unreachable')).toEqual({
      ok: true,
      value: [{ reason: "unreachable", sessionIdentifier: null }],
    });
    expect(readSkipped("unreachable;session_identifier=")).toEqual({ ok: false, reason: "malformed" });
    expect(readSkipped("unreachable,")).toEqual({ ok: false, reason: "malformed" });
    expect(readSkipped(null)).toEqual({ ok: false, reason: "missing" });
  });

  it("Secure-Session-Registration and Secure-Session-Challenge are structured fields", () => {
    expect(registrationHeader({ path: "/auth/dbsc/register", challenge: "c1", authorization: 'a"b' })).toBe(
      '(ES256 RS256);path="/auth/dbsc/register";challenge="c1";authorization="a\\"b"',
    );
    expect(registrationHeader({ path: "/r", challenge: "c", algorithms: ["ES256"] })).toBe(
      '(ES256);path="/r";challenge="c"',
    );
    expect(() => registrationHeader({ path: "/r", challenge: "" })).toThrow(TypeError);
    expect(() => registrationHeader({ path: "/r\n", challenge: "c" })).toThrow(TypeError);
    expect(challengeHeader("abc", "sid")).toBe('"abc";id="sid"');
  });
});

describe("the bound cookie", () => {
  const signer = new HmacSigner("device-binding-test-secret-0123456789");

  it("verifies without the object until its expiry, then is refused (injected clock)", async () => {
    let now = 1_800_000_000_000;
    const cookie = new BoundCookie(signer, { now: () => now, ttlMs: 600_000 });
    const { value, expiresAt } = await cookie.issue("sid_1");
    expect(expiresAt).toBe(now + 600_000);
    expect(await cookie.verify(value)).toEqual({ ok: true, sessionId: "sid_1", expiresAt });
    now = expiresAt - 1;
    expect((await cookie.verify(value)).ok).toBe(true);
    now = expiresAt;
    expect(await cookie.verify(value)).toEqual({ ok: false, reason: "expired" });
  });

  it("is refused when tampered, or signed for another purpose by the same secret", async () => {
    const cookie = new BoundCookie(signer, { now: () => 1_000 });
    const { value } = await cookie.issue("sid_1");
    const [id, expiry, signature] = value.split(".") as [string, string, string];
    expect(await cookie.verify(`sid_2.${expiry}.${signature}`)).toEqual({ ok: false, reason: "bad_signature" });
    expect(await cookie.verify(`${id}.${Number(expiry) + 1}.${signature}`)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    const plain = await signer.sign(`${id}|${expiry}`);
    expect(await cookie.verify(`${id}.${expiry}.${plain}`)).toEqual({ ok: false, reason: "bad_signature" });
    expect(await cookie.verify("garbage")).toEqual({ ok: false, reason: "malformed" });
    expect(await cookie.verify(null)).toEqual({ ok: false, reason: "malformed" });
  });
});

describe("the session instructions", () => {
  it("carry what Chrome requires and nothing it refuses", () => {
    const config = buildSessionConfig({
      sessionId: "sid_1",
      refreshUrl: "/auth/dbsc/refresh",
      origin: "https://app.example.com",
      includeSite: false,
      cookies: [{ name: "__Host-gh_bound" }],
    });
    expect(config.session_identifier).toBe("sid_1");
    expect(config.scope.include_site).toBe(false);
    expect(config.scope.origin).toBe("https://app.example.com");
    expect(config.credentials.length).toBeGreaterThan(0);
    for (const credential of config.credentials) {
      expect(credential.type).toBe("cookie");
      expect(credential.attributes).not.toMatch(/max-age|expires|partitioned/i);
      for (const attribute of credential.attributes.split(";")) {
        expect(["Domain", "Path", "Secure", "HttpOnly", "SameSite"]).toContain(attribute.trim().split("=")[0]);
      }
    }
    expect(config.credentials[0]!.attributes).toBe("Path=/; Secure; HttpOnly; SameSite=Lax");
    expect(JSON.parse(JSON.stringify(config))).toEqual(config);
  });

  it("refuses an origin with a trailing slash or a path, no credentials, and Domain on __Host-", () => {
    const base = { sessionId: "s", refreshUrl: "/r", includeSite: false, cookies: [{ name: "b" }] };
    expect(() => buildSessionConfig({ ...base, origin: "https://app.example.com/" })).toThrow(TypeError);
    expect(() => buildSessionConfig({ ...base, origin: "https://app.example.com/x" })).toThrow(TypeError);
    expect(() => buildSessionConfig({ ...base, cookies: [] })).toThrow(TypeError);
    expect(() => buildSessionConfig({ ...base, cookies: [{ name: "__Host-b", domain: "example.com" }] })).toThrow(
      TypeError,
    );
    expect(buildSessionConfig({ ...base, cookies: [{ name: "b", domain: "example.com" }] }).credentials[0]).toEqual({
      type: "cookie",
      name: "b",
      attributes: "Domain=example.com; Path=/; Secure; HttpOnly; SameSite=Lax",
    });
  });
});
