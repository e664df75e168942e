/**
 * The shared-signals transmitter (issue 32, foundation) against the texts, not against itself: a
 * reference verifier built with `jose` (keys made by jose, JWKS read by jose, signatures checked by
 * jose), and every claim compared by hand with RFC 8417 §2.2-2.3, SSF 1.0 §4 and §6, CAEP 1.0 §2
 * and §3. Our code only signs; nothing here reuses its parsing.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, type JWK } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { SecurityEvent } from "../../client-sdk/protocol/security-record";
import { SSF_EVENTS } from "../../client-sdk/protocol/shared-signals";
import { resolveAuthWorkerOptions } from "../../workers/auth/app/options";
import {
  checkSigningKeys,
  eventToSets,
  loadSigningKeys,
  type SetContext,
  signSet,
} from "../../workers/auth/ssf/transmitter";
import worker from "./worker";

const ORIGIN = "https://auth.example.com";
const RECEIVER = "https://receiver.example.net";

/** A private P-256 JWK made by jose (independent of our key code), with its kid. */
async function newKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid };
}

let keyA: JWK;
let keyB: JWK;
beforeAll(async () => {
  keyA = await newKey("key-2026-a");
  keyB = await newKey("key-2026-b");
});

const envs = new Map<string, Cloudflare.Env>();
/** The worker's env with these keys (the same object per value: the app is built once per env). */
function envWith(keys: JWK[] | string | undefined): Cloudflare.Env {
  const text = typeof keys === "string" || keys === undefined ? keys : JSON.stringify(keys);
  const key = text ?? "<none>";
  let e = envs.get(key);
  if (!e) {
    e = (text === undefined ? { ...env } : { ...env, SSF_SIGNING_KEYS: text }) as Cloudflare.Env;
    envs.set(key, e);
  }
  return e;
}

async function get(path: string, e: Cloudflare.Env): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${ORIGIN}${path}`, { headers: { Accept: "application/json" } }), e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

function timelineEvent(partial: Partial<SecurityEvent> & Pick<SecurityEvent, "type">): SecurityEvent {
  return {
    id: "evt_1",
    seq: 1,
    userId: "user_01ADALOVELACE0000000000000",
    at: 1_780_000_000_123,
    sessionId: null,
    device: null,
    ip: null,
    location: null,
    actor: null,
    detail: {},
    ...partial,
  };
}

const context: SetContext = { issuer: ORIGIN, audience: RECEIVER, now: 1_780_000_100 };

/** RFC 8417 §2.2 + SSF 1.0 §4: exactly these top-level claims (no `sub`, no `exp`, no `txn` unless set). */
const SET_CLAIMS = ["aud", "events", "iat", "iss", "jti", "sub_id"];

/** Verifies `jws` with the published JWKS, as a receiver would: signature, alg, typ, kid. */
async function verifyAsReceiver(jws: string, jwks: { keys: JWK[] }) {
  const header = decodeProtectedHeader(jws);
  // RFC 8417 §2.3: typ secevent+jwt; RFC 7515 §4.1.4: the kid that selects our key.
  expect(Object.keys(header).sort()).toEqual(["alg", "kid", "typ"]);
  expect(header.typ).toBe("secevent+jwt");
  expect(header.alg).toBe("ES256");
  const { payload } = await compactVerify(jws, createLocalJWKSet(jwks), { algorithms: ["ES256"] });
  return JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
}

afterEach(() => vi.restoreAllMocks());

describe("transmitter metadata (SSF 1.0 §6)", () => {
  it("serves /.well-known/ssf-configuration: spec_version, issuer, jwks_uri, push delivery, nothing empty", async () => {
    const res = await get("/.well-known/ssf-configuration", envWith([keyA]));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      spec_version: "1_0",
      issuer: ORIGIN,
      jwks_uri: `${ORIGIN}/ssf/jwks.json`,
      delivery_methods_supported: ["urn:ietf:rfc:8935"],
    });
    // §6.1: issuer is https with no query or fragment; no management endpoint is advertised yet.
    const issuer = new URL(body.issuer as string);
    expect([issuer.protocol, issuer.search, issuer.hash]).toEqual(["https:", "", ""]);
  });

  it("publishes every configured key with public members only (RFC 7517, RFC 7518 §6.2.1)", async () => {
    const res = await get("/ssf/jwks.json", envWith([keyA, keyB]));
    expect(res.status).toBe(200);
    const jwks = (await res.json()) as { keys: JWK[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual([keyA.kid, keyB.kid]);
    for (const [i, key] of jwks.keys.entries()) {
      expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x", "y"]);
      expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
      const source = [keyA, keyB][i]!;
      expect([key.x, key.y]).toEqual([source.x, source.y]);
      expect(JSON.stringify(key)).not.toContain(source.d!);
    }
  });
});

describe("SETs from our timeline events (RFC 8417, CAEP 1.0), verified with the published keys", () => {
  it("session.revoked by an admin: one CAEP session-revoked per session, complex subject, CAEP fields", async () => {
    const jwks = (await (await get("/ssf/jwks.json", envWith([keyA, keyB]))).json()) as { keys: JWK[] };
    const keys = await loadSigningKeys(JSON.stringify([keyA, keyB]));
    const event = timelineEvent({
      type: "session.revoked",
      sessionId: "s1",
      sessionIds: ["s1", "s2"],
      actor: { kind: "admin", label: "ops-token" },
    });
    const sets = eventToSets(event, context);
    expect(sets).toHaveLength(2);
    const seen = new Set<string>();
    for (const [i, set] of sets.entries()) {
      const claims = await verifyAsReceiver(await signSet(set, keys), jwks);
      expect(decodeProtectedHeader(await signSet(set, keys)).kid).toBe(keyA.kid);
      expect(Object.keys(claims).sort()).toEqual(SET_CLAIMS);
      expect(claims.iss).toBe(ORIGIN);
      expect(claims.aud).toBe(RECEIVER);
      expect(claims.iat).toBe(1_780_000_100);
      expect(typeof claims.jti).toBe("string");
      seen.add(claims.jti as string);
      // RFC 9493 §3.2.2 complex: the user (iss_sub under our issuer) and the session (opaque).
      expect(claims.sub_id).toEqual({
        format: "complex",
        user: { format: "iss_sub", iss: ORIGIN, sub: event.userId },
        session: { format: "opaque", id: `s${i + 1}` },
      });
      // SSF 1.0 §4: one event per SET, keyed by its type URI (CAEP 1.0 §3.1 session-revoked).
      const events = claims.events as Record<string, Record<string, unknown>>;
      expect(Object.keys(events)).toEqual([SSF_EVENTS.sessionRevoked]);
      const body = events[SSF_EVENTS.sessionRevoked]!;
      // CAEP 1.0 §2: event_timestamp in whole seconds; initiating_entity one of four; reason_admin by language.
      expect(body).toEqual({
        event_timestamp: 1_780_000_000,
        initiating_entity: "admin",
        reason_admin: { en: expect.any(String) },
      });
      expect(JSON.stringify(body)).not.toContain("ops-token");
    }
    expect(seen.size).toBe(2);
  });

  it("session.signed_out: initiating_entity user; policy and system actors map to their CAEP words", async () => {
    const [out] = eventToSets(timelineEvent({ type: "session.signed_out", sessionId: "s9" }), context);
    expect(out!.events[SSF_EVENTS.sessionRevoked]!.initiating_entity).toBe("user");
    const [policy] = eventToSets(
      timelineEvent({ type: "session.revoked", sessionId: "s9", actor: { kind: "policy" } }),
      context,
    );
    expect(policy!.events[SSF_EVENTS.sessionRevoked]!.initiating_entity).toBe("policy");
    const [system] = eventToSets(
      timelineEvent({ type: "session.revoked", sessionId: "s9", actor: { kind: "system" } }),
      context,
    );
    expect(system!.events[SSF_EVENTS.sessionRevoked]!.initiating_entity).toBe("system");
    // No session named: the user as a whole.
    const [whole] = eventToSets(timelineEvent({ type: "session.revoked", actor: { kind: "user" } }), context);
    expect(whole!.sub_id).toEqual({
      format: "complex",
      user: { format: "iss_sub", iss: ORIGIN, sub: "user_01ADALOVELACE0000000000000" },
    });
  });

  it("membership.changed: CAEP token-claims-change with the REQUIRED claims object, tenant in the subject", async () => {
    const jwks = (await (await get("/ssf/jwks.json", envWith([keyA]))).json()) as { keys: JWK[] };
    const keys = await loadSigningKeys(JSON.stringify([keyA]));
    const event = timelineEvent({
      type: "membership.changed",
      actor: { kind: "provider" },
      detail: { change: "updated", organizationId: "org_01ACME", organizationSlug: "acme", role: "admin" },
    });
    const [set] = eventToSets(event, { ...context, audience: [RECEIVER, "https://other.example.net"] });
    const claims = await verifyAsReceiver(await signSet(set!, keys), jwks);
    expect(Object.keys(claims).sort()).toEqual(SET_CLAIMS);
    expect(claims.aud).toEqual([RECEIVER, "https://other.example.net"]);
    expect(claims.sub_id).toEqual({
      format: "complex",
      user: { format: "iss_sub", iss: ORIGIN, sub: event.userId },
      tenant: { format: "opaque", id: "org_01ACME" },
    });
    expect(claims.events).toEqual({
      [SSF_EVENTS.tokenClaimsChange]: {
        event_timestamp: 1_780_000_000,
        initiating_entity: "admin",
        claims: { org_id: "org_01ACME", role: "admin" },
      },
    });
    const [removed] = eventToSets(
      timelineEvent({
        type: "membership.changed",
        detail: { change: "deleted", organizationId: "org_01ACME", role: "admin" },
      }),
      context,
    );
    expect(removed!.events[SSF_EVENTS.tokenClaimsChange]!.claims).toEqual({ org_id: "org_01ACME", role: null });
  });

  it("maps nothing else (sign-ins, lockouts; a membership change without an organization)", () => {
    for (const type of ["session.signed_in", "session.new_device", "ratelimit.lockout", "session.refused"] as const) {
      expect(eventToSets(timelineEvent({ type, sessionId: "s1" }), context)).toEqual([]);
    }
    expect(eventToSets(timelineEvent({ type: "membership.changed" }), context)).toEqual([]);
  });
});

describe("key rotation without a gap", () => {
  it("a SET signed by the previous key verifies while both are published, and not after it is dropped", async () => {
    const before = await loadSigningKeys(JSON.stringify([keyA]));
    const [set] = eventToSets(timelineEvent({ type: "session.revoked", sessionId: "s1" }), context);
    const old = await signSet(set!, before);
    // The rotation: the new key goes first (it signs), the old one stays published.
    const during = (await (await get("/ssf/jwks.json", envWith([keyB, keyA]))).json()) as { keys: JWK[] };
    expect((await verifyAsReceiver(old, during)).jti).toBe(set!.jti);
    const now = await signSet(set!, await loadSigningKeys(JSON.stringify([keyB, keyA])));
    expect(decodeProtectedHeader(now).kid).toBe(keyB.kid);
    await verifyAsReceiver(now, during);
    const after = (await (await get("/ssf/jwks.json", envWith([keyB]))).json()) as { keys: JWK[] };
    await expect(verifyAsReceiver(old, after)).rejects.toThrow();
  });
});

describe("bad key configuration fails closed, naming the variable", () => {
  it("without SSF_SIGNING_KEYS the worker answers 503 and the log names the variable", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await get("/.well-known/ssf-configuration", envWith(undefined));
    expect(res.status).toBe(503);
    expect(errors.mock.calls.flat().join("\n")).toContain("SSF_SIGNING_KEYS");
  });

  it("refuses malformed, public-only, wrong-curve, symmetric, duplicate and placeholder keys", async () => {
    const { d: _d, ...publicOnly } = keyA;
    const p384 = {
      ...(await exportJWK((await generateKeyPair("ES384", { extractable: true })).privateKey)),
      kid: "p384",
    };
    const cases: [unknown, string][] = [
      ["not json", "not JSON"],
      ["[]", "non-empty"],
      [JSON.stringify([publicOnly]), "private scalar d"],
      [JSON.stringify([p384]), "not an EC P-256 key"],
      [JSON.stringify([{ kty: "oct", k: "c2VjcmV0", kid: "hmac" }]), "not an EC P-256 key"],
      [JSON.stringify([{ ...keyA, kid: undefined }]), "no kid"],
      [JSON.stringify([keyA, { ...keyB, kid: keyA.kid }]), "repeats kid"],
      [JSON.stringify([{ ...keyA, alg: "ES512" }]), "not ES256"],
      [JSON.stringify([{ ...keyA, d: "A".repeat(43) }]), "too few distinct"],
    ];
    for (const [value, reason] of cases) {
      const check = checkSigningKeys(value, "TEAM_SSF_KEYS");
      expect(check.ok, reason).toBe(false);
      if (!check.ok) {
        expect(check.reason).toContain("TEAM_SSF_KEYS");
        expect(check.reason).toContain(reason);
      }
      await expect(loadSigningKeys(value, "TEAM_SSF_KEYS")).rejects.toThrow(/TEAM_SSF_KEYS/);
    }
    const missing = checkSigningKeys(undefined, "TEAM_SSF_KEYS");
    expect(missing).toMatchObject({ ok: false, rule: "required" });
  });

  it("a private scalar that does not belong to its public point is refused before it signs", async () => {
    const mixed = { ...keyA, d: keyB.d };
    await expect(loadSigningKeys(JSON.stringify([mixed]), "TEAM_SSF_KEYS")).rejects.toThrow(
      /TEAM_SSF_KEYS: key 0 \(key-2026-a\)/,
    );
  });

  it("createAuthWorker checks the ssf options at once", () => {
    expect(resolveAuthWorkerOptions({}).ssf).toBeUndefined();
    expect(resolveAuthWorkerOptions({ ssf: {} }).ssf).toEqual({ signingKeys: "SSF_SIGNING_KEYS", receivers: [] });
    expect(resolveAuthWorkerOptions({ ssf: { issuer: "https://sso.example.com/", signingKeys: "K" } }).ssf).toEqual({
      issuer: "https://sso.example.com",
      signingKeys: "K",
      receivers: [],
    });
    // Receivers: each names its own token secret and https origins; mistakes name the option.
    const receiver = { token: "SSF_TOKEN_A", endpoints: ["https://a.example"] };
    expect(() => resolveAuthWorkerOptions({ ssf: { receivers: { A: receiver } } })).toThrow(/not a receiver name/);
    expect(() =>
      resolveAuthWorkerOptions({ ssf: { receivers: { a: { ...receiver, token: "ADMIN_API_TOKEN" } } } }),
    ).toThrow(/ssf\.receivers\.a\.token/);
    expect(() => resolveAuthWorkerOptions({ ssf: { receivers: { a: receiver, b: { ...receiver } } } })).toThrow(
      /each receiver needs its own token/,
    );
    expect(() =>
      resolveAuthWorkerOptions({ ssf: { receivers: { a: { ...receiver, endpoints: ["http://a.example"] } } } }),
    ).toThrow(/ssf\.receivers\.a\.endpoints\[0\]/);
    expect(() =>
      resolveAuthWorkerOptions({ ssf: { receivers: { a: { ...receiver, endpoints: ["https://a.example/in"] } } } }),
    ).toThrow(/must be an origin/);
    expect(() => resolveAuthWorkerOptions({ ssf: { receivers: { a: { ...receiver, maxStreams: 0 } } } })).toThrow(
      /maxStreams/,
    );
    expect(() => resolveAuthWorkerOptions({ ssf: { issuer: "http://sso.example.com" } })).toThrow(/ssf\.issuer/);
    expect(() => resolveAuthWorkerOptions({ ssf: { issuer: "https://sso.example.com/tenant" } })).toThrow(
      /ssf\.issuer/,
    );
    expect(() => resolveAuthWorkerOptions({ ssf: { signingKeys: "not a name" } })).toThrow(/ssf\.signingKeys/);
  });
});
