/**
 * The SSF receiver (issue 32) attacked from outside: key confusion between two configured
 * transmitters, subjects under a foreign issuer, replays across transmitters, and bodies or headers
 * built to make `POST /ssf/events` fail loudly. Each answer is a §2.3 refusal or an acknowledgement
 * that acts on nobody; never a 5xx, never internal detail.
 *
 * Limits by design (not tested as faults): the email directory is global, so any configured
 * transmitter can end the sessions of anyone it names by email, whatever their organization; and an
 * `iss_sub` under a transmitter's `issSubIssuer` is taken as our user id as is. Configure only
 * transmitters trusted for every user.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { SessionManager } from "gatehouse-workers/auth";
import { importJWK, type JWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { SSF_EVENTS } from "../../client-sdk/protocol/shared-signals";
import { matchSubject, resolveSsfTransmitters, SeenTokens, verifySet } from "../../workers/auth/ssf/receiver";
import { PRIVATE_KEYS, publicOf } from "./keys";
import { ENDPOINT, makeSet, push } from "./transmitter";
import worker, { AUDIENCE, ISS_SUB_ISSUER, TRANSMITTER } from "./worker";

const A = TRANSMITTER;
const B = "https://other-idp.example.test";
const B_KEY: JWK = { ...PRIVATE_KEYS.rogue, kid: "b-1" };
/** Two transmitters: A (the test worker's, with `iss_sub` from WorkOS) and B (its own key, no `iss_sub`). */
const [ta, tb] = resolveSsfTransmitters([
  {
    issuer: A,
    jwks: { keys: [publicOf(PRIVATE_KEYS.ec), publicOf(PRIVATE_KEYS.rsa)] },
    audience: AUDIENCE,
    issSubIssuer: ISS_SUB_ISSUER,
  },
  { issuer: B, jwks: { keys: [publicOf(B_KEY)] }, audience: AUDIENCE, issSubIssuer: "https://b-users.example.test" },
]);
const both = [ta!, tb!];
const events = { [SSF_EVENTS.accountDisabled]: {} };

async function verdict(token: string): Promise<string> {
  const v = await verifySet(token, both, { now: Date.now() });
  return v.ok ? `ok:${v.transmitter.issuer}` : v.err;
}

describe("cross-transmitter key confusion", () => {
  it("the unverified iss picks a key set, but only that transmitter's keys verify under it", async () => {
    // Sanity: each signs as itself.
    expect(await verdict(await makeSet(events, { iss: A }))).toBe(`ok:${A}`);
    expect(await verdict(await makeSet(events, { iss: B, key: B_KEY }))).toBe(`ok:${B}`);
    // A's key and kid under B's iss: B publishes no such kid.
    expect(await verdict(await makeSet(events, { iss: B }))).toBe("invalid_key");
    // A's key under B's kid and iss; B's key under A's kid and iss: the signature fails.
    expect(await verdict(await makeSet(events, { iss: B, kid: "b-1" }))).toBe("authentication_failed");
    expect(await verdict(await makeSet(events, { iss: A, key: B_KEY, kid: "ec-1" }))).toBe("authentication_failed");
    // B's key and kid under A's iss: A publishes no such kid.
    expect(await verdict(await makeSet(events, { iss: A, key: B_KEY }))).toBe("invalid_key");
  });

  it("a SET without a kid is tried against the named issuer's keys only", async () => {
    const noKid = async (key: JWK, iss: string) =>
      new SignJWT({ iss, aud: AUDIENCE, iat: Math.floor(Date.now() / 1000), jti: crypto.randomUUID(), events })
        .setProtectedHeader({ alg: "ES256", typ: "secevent+jwt" })
        .sign(await importJWK(key, "ES256"));
    expect(await verdict(await noKid(B_KEY, B))).toBe(`ok:${B}`);
    expect(await verdict(await noKid(B_KEY, A))).toBe("authentication_failed");
    expect(await verdict(await noKid(PRIVATE_KEYS.ec, B))).toBe("authentication_failed");
  });
});

describe("subjects under a foreign issuer", () => {
  it("an iss_sub names a user only under the pushing transmitter's own issSubIssuer", async () => {
    const directory = new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS })
      .directory;
    const viaWorkos = { format: "iss_sub", iss: ISS_SUB_ISSUER, sub: "user_1" };
    expect(await matchSubject(viaWorkos, ta!, directory)).toEqual({ userId: "user_1", sessionId: null });
    // B may not borrow A's issSubIssuer, nor A B's.
    expect(await matchSubject(viaWorkos, tb!, directory)).toBeNull();
    const viaB = { format: "iss_sub", iss: "https://b-users.example.test", sub: "user_1" };
    expect(await matchSubject(viaB, ta!, directory)).toBeNull();
    // Nor inside a complex subject.
    expect(await matchSubject({ format: "complex", user: viaWorkos }, tb!, directory)).toBeNull();
  });
});

describe("replay store", () => {
  it("the same jti from two transmitters are two SETs; the same from one is a replay", async () => {
    const seen = new SeenTokens(env.SESSIONS, 420);
    const jti = `shared-${crypto.randomUUID()}`;
    expect(await seen.seen(A, jti)).toBe(false);
    expect(await seen.seen(B, jti)).toBe(false);
    expect(await seen.seen(A, jti)).toBe(true);
    expect(await seen.seen(B, jti)).toBe(true);
  });

  it("iss and jti cannot be re-split to collide (a jti carrying the separator)", async () => {
    const seen = new SeenTokens(env.SESSIONS, 420);
    const tail = crypto.randomUUID();
    expect(await seen.seen(A, `x\u0000${tail}`)).toBe(false);
    expect(await seen.seen(`${A}\u0000x`, tail)).toBe(false);
  });
});

/** A raw push: any body, any headers. */
async function pushRaw(body: BodyInit | null, headers: Record<string, string>): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(ENDPOINT, { method: "POST", headers, body }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const b64 = (v: unknown) =>
  btoa(typeof v === "string" ? v : JSON.stringify(v))
    .replace(/=+$/, "")
    .replace(/\+/g, "-")
    .replace(/\//g, "_");

async function expectPlainRefusal(res: Response): Promise<void> {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { err: string; description: string };
  expect(Object.keys(body).sort()).toEqual(["description", "err"]);
  expect(body.description).not.toMatch(/Error|at |\.ts|kid|-----|"d"|undefined|null/);
}

describe("odd bodies and headers", () => {
  const SET = { "Content-Type": "application/secevent+jwt" };
  const claims = () => ({
    iss: A,
    aud: AUDIENCE,
    iat: Math.floor(Date.now() / 1000),
    jti: crypto.randomUUID(),
    events,
  });

  it("oversized, empty, binary or lying bodies are refused with a 400", async () => {
    await expectPlainRefusal(await pushRaw("a".repeat(64 * 1024 + 1), SET));
    await expectPlainRefusal(await pushRaw(null, SET));
    await expectPlainRefusal(await pushRaw(new Uint8Array([0xff, 0xfe, 0x00, 0x2e, 0x2e]), SET));
    await expectPlainRefusal(await pushRaw("a.b.c", { ...SET, "Content-Length": "99999999999" }));
    await expectPlainRefusal(await pushRaw(`${"a".repeat(40_000)}.${"b".repeat(20_000)}.c`, SET));
    await expectPlainRefusal(await pushRaw("...", SET));
  });

  it("headers of the wrong shape never reach a 5xx", async () => {
    const sig = "AAAA";
    const odd: unknown[] = [
      { alg: "ES256", kid: 7, typ: "secevent+jwt" },
      { alg: "ES256", kid: { $ne: null }, typ: "secevent+jwt" },
      { alg: ["ES256"], typ: "secevent+jwt" },
      { alg: "ES256", typ: 1 },
      { alg: "ES256", kid: "ec-1", typ: "secevent+jwt", crit: ["x"], x: 1 },
      { alg: "ES256", kid: "ec-1", typ: "secevent+jwt", b64: false, crit: ["b64"] },
      { alg: "ES256", kid: "ec-1", typ: "secevent+jwt", jwk: publicOf(B_KEY) },
      { alg: "ES256", kid: "__proto__", typ: "secevent+jwt" },
      "not an object",
      [1, 2],
    ];
    for (const header of odd) {
      const res = await pushRaw(`${b64(header)}.${b64(claims())}.${sig}`, SET);
      expect(res.status, JSON.stringify(header)).toBe(400);
      await expectPlainRefusal(res);
    }
  });

  it("payloads of the wrong shape never reach a 5xx", async () => {
    const header = b64({ alg: "ES256", kid: "ec-1", typ: "secevent+jwt" });
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const odd = [b64("null"), b64("[]"), b64({ ...claims(), iss: [A] }), b64(`{"iss":"${A}","x":${deep}}`), "!!!"];
    for (const payload of odd) await expectPlainRefusal(await pushRaw(`${header}.${payload}.AAAA`, SET));
  });

  it("a signed SET whose claims have the wrong shape is refused, not acted on", async () => {
    const bad: Record<string, unknown>[] = [
      { events: [] },
      { events: { x: 1 } },
      { jti: 5 },
      { iat: "now" },
      { aud: 7 },
    ];
    for (const over of bad) {
      const token = await new SignJWT({ ...claims(), ...over })
        .setProtectedHeader({ alg: "ES256", kid: "ec-1", typ: "secevent+jwt" })
        .sign(await importJWK(PRIVATE_KEYS.ec, "ES256"));
      const res = await push(token);
      expect(res.status, JSON.stringify(over)).toBe(400);
      await expectPlainRefusal(res);
    }
  });
});
