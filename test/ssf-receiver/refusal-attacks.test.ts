/**
 * Refused SETs on the person's timeline (`signal.received`, outcomes `expired`, `wrong_audience`,
 * `replayed`) attacked: only a SET whose signature verified under the named transmitter's own keys
 * may write there. jose (6.x) attaches a claims set to an error (`JWTClaimValidationFailed`,
 * `JWTExpired`) only in `validateClaimsSet`, which `jwtVerify` runs after `verifyCompact` has checked
 * the signature; every error before it (`JWSInvalid` for a bad header, `crit` or signature encoding,
 * `JOSEAlgNotAllowed`, `JWKSNoMatchingKey`, `JWSSignatureVerificationFailed`) carries none, and a
 * `typ` refusal (another JWT its keys signed, such as an ID token) is never recorded.
 *
 * Limits by design (not faults): whoever holds a SET the transmitter signed (another receiver it was
 * addressed to, a log) can push it here and write one `wrong_audience` or `expired` entry per SET,
 * event type and outcome on the timeline of the person it names; a SET naming many event types
 * writes one entry for each.
 */
import { env } from "cloudflare:workers";
import { SessionManager } from "gatehouse-workers/auth";
import { importJWK, type JWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { SSF_EVENTS } from "../../client-sdk/protocol/shared-signals";
import { resolveSsfTransmitters, verifySet } from "../../workers/auth/ssf/receiver";
import { PRIVATE_KEYS, publicOf } from "./keys";
import { makeSet, push } from "./transmitter";
import { AUDIENCE, TRANSMITTER } from "./worker";

function manager(): SessionManager {
  return new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS });
}
let n = 0;
const freshUser = () => `user_ssfr_${Date.now().toString(36)}_${++n}`;
const emailOf = (userId: string) => `${userId}@acme.test`;
const byEmail = (userId: string) => ({ format: "email", email: emailOf(userId) });
const disabled = { [SSF_EVENTS.accountDisabled]: {} };

async function signIn(userId: string): Promise<void> {
  await manager().createSession({ id: userId, email: emailOf(userId), firstName: "T", lastName: "U", memberships: [] });
}
async function signals(userId: string) {
  return (await manager().timeline(userId)).events.filter((e) => e.type === "signal.received").map((e) => e.detail);
}
const old = () => Math.floor(Date.now() / 1000) - 3_600;
const b64 = (v: unknown) =>
  btoa(typeof v === "string" ? v : JSON.stringify(v))
    .replace(/=+$/, "")
    .replace(/\+/g, "-")
    .replace(/\//g, "_");

/** Signs `claims` under any header with `key` (`alg` from the header). */
async function signRaw(header: Record<string, unknown>, claims: Record<string, unknown>, key: JWK): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader(header as { alg: string })
    .sign(await importJWK(key, header.alg as string));
}

describe("nobody but the transmitter writes a refusal on a timeline", () => {
  const forged = (user: string): [string, () => Promise<string>][] => [
    [
      "a key it does not publish, under its kid, too old",
      () => makeSet(disabled, { subId: byEmail(user), key: PRIVATE_KEYS.rogue, kid: "ec-1", iat: old() }),
    ],
    [
      "a key it does not publish, under its kid, another audience",
      () =>
        makeSet(disabled, { subId: byEmail(user), key: PRIVATE_KEYS.rogue, kid: "ec-1", aud: "https://other.example" }),
    ],
    ["an unknown kid, too old", () => makeSet(disabled, { subId: byEmail(user), kid: "nope", iat: old() })],
    [
      "alg none, too old",
      async () =>
        `${b64({ alg: "none", typ: "secevent+jwt" })}.${b64({ iss: TRANSMITTER, aud: AUDIENCE, iat: old(), jti: crypto.randomUUID(), sub_id: byEmail(user), events: disabled })}.`,
    ],
    [
      "HS256 keyed with its public key (alg confusion), another audience",
      async () => {
        const secret = new TextEncoder().encode(JSON.stringify(publicOf(PRIVATE_KEYS.ec)));
        return new SignJWT({
          iss: TRANSMITTER,
          aud: "https://other.example",
          iat: old(),
          jti: crypto.randomUUID(),
          sub_id: byEmail(user),
          events: disabled,
        })
          .setProtectedHeader({ alg: "HS256", typ: "secevent+jwt", kid: "ec-1" })
          .sign(secret);
      },
    ],
    [
      "a valid SET's signature over other claims (payload swapped), too old",
      async () => {
        const [h, , sig] = (await makeSet(disabled, { subId: { format: "email", email: "x@acme.test" } })).split(".");
        return `${h}.${b64({ iss: TRANSMITTER, aud: AUDIENCE, iat: old(), jti: crypto.randomUUID(), sub_id: byEmail(user), events: disabled })}.${sig}`;
      },
    ],
    [
      "an unknown crit header with a bad signature, too old",
      async () => {
        const sig = (await makeSet(disabled)).split(".")[2];
        const header = { alg: "ES256", kid: "ec-1", typ: "secevent+jwt", crit: ["x-evil"], "x-evil": 1 };
        const claims = {
          iss: TRANSMITTER,
          aud: AUDIENCE,
          iat: old(),
          jti: crypto.randomUUID(),
          sub_id: byEmail(user),
          events: disabled,
        };
        return `${b64(header)}.${b64(claims)}.${sig}`;
      },
    ],
    [
      "b64:false (unencoded payload) with a bad signature, too old",
      async () => {
        const sig = (await makeSet(disabled)).split(".")[2];
        const header = { alg: "ES256", kid: "ec-1", typ: "secevent+jwt", b64: false, crit: ["b64"] };
        const claims = {
          iss: TRANSMITTER,
          aud: AUDIENCE,
          iat: old(),
          jti: crypto.randomUUID(),
          sub_id: byEmail(user),
          events: disabled,
        };
        return `${b64(header)}.${b64(claims)}.${sig}`;
      },
    ],
    [
      "a signature that is not base64url, too old",
      async () =>
        `${(await makeSet(disabled, { subId: byEmail(user), iat: old() })).split(".").slice(0, 2).join(".")}.!!!`,
    ],
  ];

  it.each(forged("placeholder").map(([name], i) => [name, i] as const))(
    "%s: refused, no timeline entry",
    async (_, i) => {
      const user = freshUser();
      await signIn(user);
      const token = await forged(user)[i]![1]();
      const res = await push(token);
      expect(res.status).toBe(400);
      expect(await signals(user)).toEqual([]);
    },
  );

  it("a JWT its keys signed that is not a SET (typ JWT, expired: an ID token's shape): refused, not recorded", async () => {
    const user = freshUser();
    await signIn(user);
    const claims = {
      iss: TRANSMITTER,
      aud: "client_123",
      iat: old(),
      exp: old() + 60,
      jti: crypto.randomUUID(),
      sub_id: byEmail(user),
      events: disabled,
    };
    for (const typ of ["JWT", undefined, "at+jwt"]) {
      const header: Record<string, unknown> = { alg: "ES256", kid: "ec-1" };
      if (typ) header.typ = typ;
      expect((await push(await signRaw(header, { ...claims, jti: crypto.randomUUID() }, PRIVATE_KEYS.ec))).status).toBe(
        400,
      );
    }
    expect(await signals(user)).toEqual([]);
  });

  it("a key of another configured transmitter under this one's issuer: verifySet names no signed refusal", async () => {
    const bKey: JWK = { ...PRIVATE_KEYS.rogue, kid: "b-1" };
    const transmitters = resolveSsfTransmitters([
      { issuer: TRANSMITTER, jwks: { keys: [publicOf(PRIVATE_KEYS.ec)] }, audience: AUDIENCE },
      { issuer: "https://b.example.test", jwks: { keys: [publicOf(bKey)] }, audience: AUDIENCE },
    ]);
    for (const kid of ["b-1", "ec-1", undefined]) {
      for (const o of [{ iat: old() }, { aud: "https://other.example" }]) {
        const token = await makeSet(disabled, { ...o, key: bKey, kid: kid as string, subId: byEmail("x") });
        const v = await verifySet(token, transmitters, { now: Date.now() });
        expect(v.ok).toBe(false);
        expect(v.ok === false && v.signed).toBeUndefined();
      }
    }
  });
});

describe("what one signed refusal may write", () => {
  it("the same old SET pushed 20 times: one entry", async () => {
    const user = freshUser();
    await signIn(user);
    const set = await makeSet(disabled, { subId: byEmail(user), iat: old() });
    for (let i = 0; i < 20; i++) expect((await push(set)).status).toBe(400);
    expect(await signals(user)).toHaveLength(1);
  });

  it("a jti over 256 characters: refused, nothing written (the digest is never of an unbounded jti)", async () => {
    const user = freshUser();
    await signIn(user);
    for (const o of [{ iat: old() }, { aud: "https://other.example" }]) {
      expect((await push(await makeSet(disabled, { ...o, subId: byEmail(user), jti: "j".repeat(257) }))).status).toBe(
        400,
      );
    }
    expect(await signals(user)).toEqual([]);
  });

  it("events that are not objects, and no sub_id: refused (400), never a 5xx", async () => {
    const user = freshUser();
    await signIn(user);
    for (const events of [{ [SSF_EVENTS.accountDisabled]: null }, { a: 1, b: "x" }, []]) {
      const token = await signRaw(
        { alg: "ES256", kid: "ec-1", typ: "secevent+jwt" },
        { iss: TRANSMITTER, aud: "https://other.example", iat: old(), jti: crypto.randomUUID(), events },
        PRIVATE_KEYS.ec,
      );
      expect((await push(token)).status).toBe(400);
    }
    expect(await signals(user)).toEqual([]);
  });

  it("an iss_sub under a foreign issuer in a refused SET: nobody's timeline", async () => {
    const user = freshUser();
    await signIn(user);
    const subId = { format: "iss_sub", iss: "https://evil.example", sub: user };
    expect((await push(await makeSet(disabled, { subId, iat: old() }))).status).toBe(400);
    expect(await signals(user)).toEqual([]);
  });

  it("a refused SET naming 40 event types: an entry per type at most, none beyond them; the answer is a 400", async () => {
    const user = freshUser();
    await signIn(user);
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`https://example.test/event/${i}`, {}]));
    const set = await makeSet(many, { subId: byEmail(user), aud: "https://other.example" });
    expect((await push(set)).status).toBe(400);
    expect((await push(set)).status).toBe(400);
    const written = await signals(user);
    expect(written.length).toBeLessThanOrEqual(40);
    expect(new Set(written.map((d) => d.event)).size).toBe(written.length);
    expect(written.every((d) => d.outcome === "wrong_audience")).toBe(true);
  });
});
