/**
 * The SSF receiver (issue 32) against the texts: SETs built by the reference transmitter
 * (transmitter.ts) pushed to `POST /ssf/events`. Each mapping ends exactly the right sessions
 * (CAEP 1.0 session-revoked / credential-change, RISC account-disabled / credential-compromise),
 * subjects by email and by `iss_sub`; refusals answer RFC 8935 §2.3 bodies with §2.4 codes.
 */
import { env } from "cloudflare:workers";
import { SessionManager } from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";
import { SSF_EVENTS } from "../../client-sdk/protocol/shared-signals";
import { PRIVATE_KEYS } from "./keys";
import { makeSet, push, unsecuredSet } from "./transmitter";
import { ISS_SUB_ISSUER } from "./worker";

const CODES = [
  "invalid_request",
  "invalid_key",
  "invalid_issuer",
  "invalid_audience",
  "authentication_failed",
  "access_denied",
];

function manager(): SessionManager {
  return new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS });
}

let n = 0;
function freshUser(): string {
  return `user_ssf_${Date.now().toString(36)}_${++n}`;
}
const emailOf = (userId: string) => `${userId}@acme.test`;

async function signIn(userId: string): Promise<string> {
  const user = { id: userId, email: emailOf(userId), firstName: "Test", lastName: userId, memberships: [] };
  const { sessionId } = await manager().createSession(user);
  return sessionId;
}

async function liveSessions(userId: string): Promise<string[]> {
  return (await manager().listSessions(userId)).map((s) => s.id).sort();
}

async function signals(userId: string) {
  const { events } = await manager().timeline(userId);
  return events.filter((e) => e.type === "signal.received").map((e) => e.detail);
}

async function revokedByProvider(userId: string) {
  const { events } = await manager().timeline(userId);
  return events.filter((e) => e.type === "session.revoked" && e.actor?.kind === "provider");
}

const byEmail = (userId: string) => ({ format: "email", email: emailOf(userId) });
const byIssSub = (userId: string) => ({ format: "iss_sub", iss: ISS_SUB_ISSUER, sub: userId });

/** The RFC 8935 §2.3 error body: exactly `err` (a §2.4 code) and `description`, JSON, status 400. */
async function expectRefused(res: Response, err: string): Promise<void> {
  expect(res.status).toBe(400);
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["description", "err"]);
  expect(CODES).toContain(body.err);
  expect(body.err).toBe(err);
  // Nothing internal: no stack, no key material, no claim values.
  expect(String(body.description)).not.toMatch(/Error|at |\.ts|user_ssf|kid|-----|"d"/);
}

describe("acting on verified SETs", () => {
  it("session-revoked with a complex subject ends exactly that session (email)", async () => {
    const user = freshUser();
    const [a, b] = [await signIn(user), await signIn(user)];
    const bystander = freshUser();
    const other = await signIn(bystander);
    const subId = { format: "complex", user: byEmail(user), session: { format: "opaque", id: a } };
    const res = await push(await makeSet({ [SSF_EVENTS.sessionRevoked]: { event_timestamp: 1 } }, { subId }));
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
    expect(await liveSessions(user)).toEqual([b]);
    expect(await liveSessions(bystander)).toEqual([other]);
    const [entry] = await revokedByProvider(user);
    expect(entry?.actor).toEqual({ kind: "provider", label: "idp.example.test" });
    expect(entry?.sessionIds).toEqual([a]);
    expect(await signals(user)).toEqual([
      { issuer: "idp.example.test", event: SSF_EVENTS.sessionRevoked, outcome: "revoked" },
    ]);
    expect(await signals(bystander)).toEqual([]);
  });

  it("session-revoked about a user ends all of that user's sessions (iss_sub)", async () => {
    const user = freshUser();
    await signIn(user);
    await signIn(user);
    const bystander = freshUser();
    const kept = await signIn(bystander);
    const res = await push(await makeSet({ [SSF_EVENTS.sessionRevoked]: {} }, { subId: byIssSub(user) }));
    expect(res.status).toBe(202);
    expect(await liveSessions(user)).toEqual([]);
    expect(await liveSessions(bystander)).toEqual([kept]);
  });

  for (const [name, type] of [
    ["CAEP credential-change", SSF_EVENTS.credentialChange],
    ["RISC account-disabled", SSF_EVENTS.accountDisabled],
    ["RISC credential-compromise", SSF_EVENTS.credentialCompromise],
  ] as const) {
    it(`${name} ends all the user's sessions, even when the subject names one session`, async () => {
      const user = freshUser();
      const a = await signIn(user);
      await signIn(user);
      const bystander = freshUser();
      const kept = await signIn(bystander);
      const subId = { format: "complex", user: byEmail(user), session: { format: "opaque", id: a } };
      const res = await push(
        await makeSet({ [type]: { credential_type: "password", change_type: "update" } }, { subId }),
      );
      expect(res.status).toBe(202);
      expect(await liveSessions(user)).toEqual([]);
      expect(await liveSessions(bystander)).toEqual([kept]);
      expect((await revokedByProvider(user)).length).toBe(1);
    });
  }

  it("RS256 keys are accepted too, and the subject may sit in the event (CAEP's `subject`)", async () => {
    const user = freshUser();
    await signIn(user);
    const set = await makeSet({ [SSF_EVENTS.accountDisabled]: { subject: byEmail(user) } }, { key: PRIVATE_KEYS.rsa });
    expect((await push(set)).status).toBe(202);
    expect(await liveSessions(user)).toEqual([]);
  });

  it("an iss_sub of another issuer matches nobody: acknowledged, nothing ended", async () => {
    const user = freshUser();
    const kept = await signIn(user);
    const subId = { format: "iss_sub", iss: "https://elsewhere.example", sub: user };
    expect((await push(await makeSet({ [SSF_EVENTS.credentialCompromise]: {} }, { subId }))).status).toBe(202);
    expect(await liveSessions(user)).toEqual([kept]);
  });

  it("a session subject naming another user's session ends nothing", async () => {
    const [user, victim] = [freshUser(), freshUser()];
    const own = await signIn(user);
    const theirs = await signIn(victim);
    const subId = { format: "complex", user: byEmail(user), session: { format: "opaque", id: theirs } };
    expect((await push(await makeSet({ [SSF_EVENTS.sessionRevoked]: {} }, { subId }))).status).toBe(202);
    expect(await liveSessions(user)).toEqual([own]);
    expect(await liveSessions(victim)).toEqual([theirs]);
  });

  it("an unknown subject is acknowledged (202), never a 5xx", async () => {
    const res = await push(await makeSet({ [SSF_EVENTS.accountDisabled]: {} }, { subId: byEmail("nobody_here") }));
    expect(res.status).toBe(202);
  });

  it("an unknown event type is acknowledged and acts on nobody", async () => {
    const user = freshUser();
    const kept = await signIn(user);
    const type = "https://schemas.openid.net/secevent/caep/event-type/assurance-level-change";
    expect((await push(await makeSet({ [type]: {} }, { subId: byEmail(user) }))).status).toBe(202);
    expect(await liveSessions(user)).toEqual([kept]);
    expect(await signals(user)).toEqual([{ issuer: "idp.example.test", event: type, outcome: "unknown_event" }]);
  });
});

describe("refusing SETs (RFC 8935 §2.3, §2.4)", () => {
  it("a replayed jti is refused (invalid_request) and acts once", async () => {
    const user = freshUser();
    await signIn(user);
    const set = await makeSet({ [SSF_EVENTS.sessionRevoked]: {} }, { subId: byEmail(user) });
    expect((await push(set)).status).toBe(202);
    await signIn(user);
    const again = await push(set);
    await expectRefused(again, "invalid_request");
    expect((await liveSessions(user)).length).toBe(1);
    expect((await signals(user)).map((d) => d.outcome).sort()).toEqual(["replayed", "revoked"]);
  });

  it("iat in the future beyond the skew, or older than the window, is refused", async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const iat of [now + 600, now - 3600]) {
      const user = freshUser();
      const kept = await signIn(user);
      await expectRefused(
        await push(await makeSet({ [SSF_EVENTS.accountDisabled]: {} }, { subId: byEmail(user), iat })),
        "invalid_request",
      );
      expect(await liveSessions(user)).toEqual([kept]);
      // Its transmitter did sign it: the person's timeline says it was refused, and why.
      expect(await signals(user)).toEqual([
        { issuer: "idp.example.test", event: SSF_EVENTS.accountDisabled, outcome: "expired" },
      ]);
    }
  });

  it("a wrong signature (an unpublished key under a published kid) is refused: authentication_failed", async () => {
    const user = freshUser();
    const kept = await signIn(user);
    const set = await makeSet({ [SSF_EVENTS.accountDisabled]: {} }, { subId: byEmail(user), key: PRIVATE_KEYS.rogue });
    await expectRefused(await push(set), "authentication_failed");
    expect(await liveSessions(user)).toEqual([kept]);
    // An unverified SET's claims are not trusted, so it writes on nobody's timeline.
    expect(await signals(user)).toEqual([]);
  });

  it("an unknown kid is refused: invalid_key", async () => {
    const set = await makeSet({ [SSF_EVENTS.accountDisabled]: {} }, { subId: byEmail("x"), kid: "no-such-key" });
    await expectRefused(await push(set), "invalid_key");
  });

  it("a wrong audience is refused: invalid_audience, and recorded on the person's timeline", async () => {
    const user = freshUser();
    const kept = await signIn(user);
    const set = await makeSet(
      { [SSF_EVENTS.accountDisabled]: {} },
      { subId: byEmail(user), aud: "https://other.example" },
    );
    await expectRefused(await push(set), "invalid_audience");
    await expectRefused(await push(set), "invalid_audience");
    expect(await liveSessions(user)).toEqual([kept]);
    // Once per SET, however often it comes.
    expect(await signals(user)).toEqual([
      { issuer: "idp.example.test", event: SSF_EVENTS.accountDisabled, outcome: "wrong_audience" },
    ]);
  });

  it("an audience list that includes ours is accepted", async () => {
    const aud = ["https://other.example", "https://auth.example.com/ssf"];
    expect((await push(await makeSet({ [SSF_EVENTS.accountDisabled]: {} }, { subId: byEmail("x"), aud }))).status).toBe(
      202,
    );
  });

  it("an issuer not configured is refused: invalid_issuer", async () => {
    const set = await makeSet(
      { [SSF_EVENTS.accountDisabled]: {} },
      { subId: byEmail("x"), iss: "https://evil.example" },
    );
    await expectRefused(await push(set), "invalid_issuer");
  });

  it("alg none is refused, and ends nothing", async () => {
    const user = freshUser();
    const kept = await signIn(user);
    await expectRefused(
      await push(unsecuredSet({ [SSF_EVENTS.accountDisabled]: {} }, byEmail(user))),
      "authentication_failed",
    );
    expect(await liveSessions(user)).toEqual([kept]);
  });

  it("HS256 (a shared secret made of the public key) is refused", async () => {
    const { SignJWT } = await import("jose");
    const secret = new TextEncoder().encode(JSON.stringify(PRIVATE_KEYS.ec.x));
    const now = Math.floor(Date.now() / 1000);
    const set = await new SignJWT({
      iss: "https://idp.example.test",
      aud: "https://auth.example.com/ssf",
      iat: now,
      jti: crypto.randomUUID(),
      events: { [SSF_EVENTS.accountDisabled]: {} },
    })
      .setProtectedHeader({ alg: "HS256", typ: "secevent+jwt", kid: "ec-1" })
      .sign(secret);
    await expectRefused(await push(set), "authentication_failed");
  });

  it("typ must be secevent+jwt (the long form too); missing or other is refused", async () => {
    const events = { [SSF_EVENTS.accountDisabled]: {} };
    expect((await push(await makeSet(events, { subId: byEmail("x"), typ: "application/secevent+jwt" }))).status).toBe(
      202,
    );
    await expectRefused(await push(await makeSet(events, { subId: byEmail("x"), typ: null })), "invalid_request");
    await expectRefused(await push(await makeSet(events, { subId: byEmail("x"), typ: "JWT" })), "invalid_request");
  });

  it("a body that is not a SET, the wrong media type, or no events is refused: invalid_request", async () => {
    await expectRefused(await push("not a jwt"), "invalid_request");
    await expectRefused(
      await push(await makeSet({ [SSF_EVENTS.accountDisabled]: {} }), "application/json"),
      "invalid_request",
    );
    await expectRefused(await push(await makeSet({})), "invalid_request");
  });
});
