/**
 * Our security events pushed as SETs (issue 32, transmitter), checked from the receiving end: each
 * push as the reference RFC 8935 endpoint (test/ssf-reference/push-receiver.js) kept it, each SET
 * verified by the reference verifier (set.ts: RFC 8417, SSF 1.0 §4, CAEP 1.0 / RISC 1.0 schemas)
 * with the JWKS the reference client discovered. The mappings: a revoked session → CAEP
 * session-revoked per session; a membership change → token-claims-change; a user deleted at the
 * provider → session-revoked and RISC account-purged. Delivery: retried with the same bytes, in
 * order, a final 400 not retried, paused streams hold, disabled ones drop, removed subjects are
 * held back, verification events echo the state. Time is the objects' clock, injected.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SsfStreams, STREAM_RETRY_DELAYS_MS } from "../../durable-objects/ssf-streams";
import { PUSH_METHOD } from "../ssf-reference/client";
import { EVENT_TYPES, expectVerificationEvent, type VerifiedSet } from "../ssf-reference/set";
import {
  answerNext,
  carryOut,
  createStream,
  deleteAllStreams,
  freshPath,
  freshUser,
  joinOrganizations,
  manager,
  pushesTo,
  receivers,
  signIn,
  streamsStub,
  userStub,
  userSubject,
  verified,
} from "./helpers";
import { ISSUER, SIEM, WAREHOUSE } from "./worker";

let now = 0;
beforeEach(() => {
  // Near the real time: the sessions are created by the wall clock and expire by the objects' clock.
  now = Date.now();
  setObjectClock(() => now);
});
afterEach(async () => {
  setObjectClock(null);
  await deleteAllStreams();
});

/** The session and the user a session-revoked SET's complex subject names. */
const sessionOf = (set: VerifiedSet) => (set.claims.sub_id.session as { id: string }).id;
const userOf = (set: VerifiedSet) => (set.claims.sub_id.user as { sub: string }).sub;

describe("a revoked session (CAEP 1.0 §3.1 session-revoked)", () => {
  it("reaches the stream as one verified SET per session, pushed as RFC 8935 says", async () => {
    const path = freshPath();
    const siem = receivers.siem();
    await siem.discover();
    const created = await siem.createStream({
      delivery: { method: PUSH_METHOD, endpoint_url: `${SIEM}${path}`, authorization_header: "Bearer siem-inbox-7" },
    });
    const streamId = (created.body as { stream_id: string }).stream_id;
    const user = freshUser();
    const [a, b] = [await signIn(user), await signIn(user)];
    await manager().revokeUser(user);
    await carryOut(user);

    const pushes = await pushesTo(path);
    expect(pushes).toHaveLength(2);
    for (const push of pushes) {
      expect(push.method).toBe("POST");
      expect(push.headers["content-type"]).toBe("application/secevent+jwt");
      expect(push.headers.accept).toBe("application/json");
      expect(push.headers.authorization).toBe("Bearer siem-inbox-7");
      expect(push.violations).toEqual([]);
      expect(push.status).toBe(202);
    }
    const sets = await verified(pushes, SIEM, now);
    expect(sets.map((s) => s.eventType)).toEqual([EVENT_TYPES.sessionRevoked, EVENT_TYPES.sessionRevoked]);
    expect(sets.map((s) => s.claims.sub_id).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))).toEqual(
      [a, b].sort().map((id) => ({ format: "complex", user: userSubject(user), session: { format: "opaque", id } })),
    );
    for (const set of sets) {
      expect(set.claims.iss).toBe(ISSUER);
      expect(set.claims.aud).toBe(SIEM);
      expect(set.claims.iat).toBe(Math.floor(now / 1000));
      expect(set.claims.jti.startsWith(`${streamId}.`)).toBe(true);
      expect(set.header.kid).toBe("ssf-test-2026-a");
      expect(set.event).toMatchObject({ event_timestamp: expect.any(Number), initiating_entity: expect.any(String) });
    }
    // The delivery log names each attempt, never the SET.
    const [overview] = (await streamsStub().overview()).filter((o) => o.configuration.stream_id === streamId);
    expect(overview!.pending).toBe(0);
    expect(overview!.recent.map((r) => r.outcome)).toEqual(["delivered", "delivered"]);
    expect(JSON.stringify(overview)).not.toContain("siem-inbox-7");
  });

  it("goes to every stream that asked for it, each with its own aud and jti; not to one that did not", async () => {
    const [siemPath, warehousePath, claimsOnly] = [freshPath(), freshPath(), freshPath()];
    await createStream(receivers.siem(), SIEM, siemPath);
    await createStream(receivers.warehouse(), WAREHOUSE, warehousePath);
    await createStream(receivers.warehouse(), WAREHOUSE, claimsOnly, {
      events_requested: [EVENT_TYPES.tokenClaimsChange],
    });
    const user = freshUser();
    await manager().revokeSession(await signIn(user));
    await carryOut(user);
    const [toSiem] = await verified(await pushesTo(siemPath), SIEM, now);
    const [toWarehouse] = await verified(await pushesTo(warehousePath), "warehouse-prod", now);
    expect(toSiem!.claims.sub_id).toEqual(toWarehouse!.claims.sub_id);
    expect(toSiem!.claims.jti).not.toBe(toWarehouse!.claims.jti);
    expect(await pushesTo(claimsOnly)).toEqual([]);
  });

  it("is queued once however often the user's object hands the same event over", async () => {
    const path = freshPath();
    await createStream(receivers.siem(), SIEM, path);
    const user = freshUser();
    await manager().revokeSession(await signIn(user));
    const { events } = await manager().timeline(user);
    const revoked = events.filter((e) => e.type === "session.revoked");
    // The hand-off is at least once: a repeat (a crash before the outbox row was settled) adds nothing.
    expect(await streamsStub().publish(revoked)).toBe(1);
    expect(await streamsStub().publish(revoked)).toBe(1);
    await carryOut(user);
    expect(await pushesTo(path)).toHaveLength(1);
  });
});

describe("the kill switch", () => {
  it("ends every member's sessions, each pushed as session-revoked by an administrator", async () => {
    const path = freshPath();
    await createStream(receivers.siem(), SIEM, path);
    const org = `org_ks_${Date.now().toString(36)}`;
    const [ann, bob] = [freshUser(), freshUser()];
    const sessions = [await signIn(ann, org), await signIn(bob, org)];
    // The switch ends what was issued before its epoch (the objects' clock; the sign-ins used the wall's).
    now = Date.now() + 1;
    await manager().endOrganizationSessions(org, { kind: "kill_switch", label: "ops" });
    await carryOut(ann);
    await carryOut(bob);
    const sets = await verified(await pushesTo(path), SIEM, now);
    expect(sets.map((s) => s.eventType)).toEqual([EVENT_TYPES.sessionRevoked, EVENT_TYPES.sessionRevoked]);
    expect(sets.map(sessionOf).sort()).toEqual([...sessions].sort());
    expect(sets.map(userOf).sort()).toEqual([ann, bob].sort());
    // CAEP 1.0 §2: the kill switch is an administrator's act; no operator label leaves.
    for (const set of sets) {
      expect(set.event.initiating_entity).toBe("admin");
      expect(JSON.stringify(set.claims)).not.toContain("ops");
    }
  });
});

describe("role changes and deleted accounts", () => {
  it("a membership change becomes CAEP token-claims-change with the tenant and the new role", async () => {
    const path = freshPath();
    await createStream(receivers.siem(), SIEM, path);
    const user = freshUser();
    await signIn(user);
    await userStub(user).applyProviderEvent({
      id: `event_${user}_m`,
      type: "organization_membership.updated",
      occurredAt: now,
      organizationId: "org_acme",
      organizationSlug: "acme",
      role: "admin",
    });
    await carryOut(user);
    const [set] = await verified(await pushesTo(path), SIEM, now);
    expect(set!.eventType).toBe(EVENT_TYPES.tokenClaimsChange);
    expect(set!.claims.sub_id).toEqual({
      format: "complex",
      user: userSubject(user),
      tenant: { format: "opaque", id: "org_acme" },
    });
    expect(set!.event.claims).toEqual({ org_id: "org_acme", role: "admin" });
  });

  it("a user deleted at the provider: session-revoked for each session and one RISC account-purged", async () => {
    const path = freshPath();
    await createStream(receivers.siem(), SIEM, path);
    const user = freshUser();
    const session = await signIn(user);
    await userStub(user).applyProviderEvent({ id: `event_${user}_d`, type: "user.deleted", occurredAt: now });
    await carryOut(user);
    const sets = await verified(await pushesTo(path), SIEM, now);
    expect(sets.map((s) => s.eventType)).toEqual([EVENT_TYPES.sessionRevoked, EVENT_TYPES.accountPurged]);
    expect(sets[0]!.claims.sub_id).toEqual({
      format: "complex",
      user: userSubject(user),
      session: { format: "opaque", id: session },
    });
    // RISC 1.0: the account itself is the subject.
    expect(sets[1]!.claims.sub_id).toEqual(userSubject(user));
    expect(sets[0]!.event.initiating_entity).toBe("admin");
  });
  it("a user deleted with no session here: RISC account-purged all the same", async () => {
    const path = freshPath();
    await createStream(receivers.siem(), SIEM, path);
    const user = freshUser();
    await userStub(user).applyProviderEvent({ id: `event_${user}_gone`, type: "user.deleted", occurredAt: now });
    await carryOut(user);
    const sets = await verified(await pushesTo(path), SIEM, now);
    expect(sets.map((s) => s.eventType)).toEqual([EVENT_TYPES.accountPurged]);
    expect(sets[0]!.claims.sub_id).toEqual(userSubject(user));
    // Its timeline says so (and the provider's redelivery adds nothing).
    await userStub(user).applyProviderEvent({ id: `event_${user}_gone`, type: "user.deleted", occurredAt: now });
    const { events } = await manager().timeline(user);
    expect(events.filter((e) => e.type === "account.ended").map((e) => e.detail)).toEqual([{ reason: "user_deleted" }]);
  });

  it("a person deactivated in their directory: session-revoked and one RISC account-disabled", async () => {
    const path = freshPath();
    await createStream(receivers.siem(), SIEM, path);
    const user = freshUser();
    await signIn(user, "org_acme");
    await userStub(user).applyProviderEvent({
      id: `event_${user}_x`,
      type: "dsync.user.updated",
      occurredAt: now,
      organizationId: "org_acme",
    });
    await carryOut(user);
    const sets = await verified(await pushesTo(path), SIEM, now);
    expect(sets.map((s) => s.eventType)).toEqual([EVENT_TYPES.sessionRevoked, EVENT_TYPES.accountDisabled]);
    // Disabled in that organization's name: the person in that tenant (SSF 1.0 §3.3 complex subject).
    expect(sets[1]!.claims.sub_id).toEqual({
      format: "complex",
      user: userSubject(user),
      tenant: { format: "opaque", id: "org_acme" },
    });
  });
});

describe("delivery", () => {
  it("retries a failed push after the backoff with the same bytes, and keeps the stream's order", async () => {
    const path = freshPath();
    await createStream(receivers.siem(), SIEM, path);
    const user = freshUser();
    const [a, b] = [await signIn(user), await signIn(user)];
    await answerNext(path, 503);
    await manager().revokeSession(a);
    await carryOut(user);
    now += 1_000;
    await manager().revokeSession(b);
    await carryOut(user);
    // The first failed; the second waits behind it (never overtakes it).
    let pushes = await pushesTo(path);
    expect(pushes.map((p) => p.status)).toEqual([503]);
    now += STREAM_RETRY_DELAYS_MS[0]! - 1_001;
    await runDurableObjectAlarm(streamsStub());
    expect(await pushesTo(path)).toHaveLength(1);
    now += 1;
    await runDurableObjectAlarm(streamsStub());
    pushes = await pushesTo(path);
    expect(pushes.map((p) => p.status)).toEqual([503, 202, 202]);
    expect(pushes[1]!.body).toBe(pushes[0]!.body);
    const sets = await verified(pushes.slice(1), SIEM, now);
    expect(sets.map((s) => sessionOf(s))).toEqual([a, b]);
  });

  it("does not retry a SET the receiver refused for good (400), but does retry invalid_key", async () => {
    const path = freshPath();
    const streamId = await createStream(receivers.siem(), SIEM, path);
    const user = freshUser();
    const [a, b] = [await signIn(user), await signIn(user)];
    await answerNext(path, 400, 1, "invalid_audience");
    await manager().revokeSession(a);
    await carryOut(user);
    await answerNext(path, 400, 1, "invalid_key");
    await manager().revokeSession(b);
    await carryOut(user);
    now += STREAM_RETRY_DELAYS_MS[0]!;
    await runDurableObjectAlarm(streamsStub());
    const pushes = await pushesTo(path);
    expect(pushes.map((p) => [p.status, p.err])).toEqual([
      [400, "invalid_audience"],
      [400, "invalid_key"],
      [202, null],
    ]);
    const [overview] = (await streamsStub().overview()).filter((o) => o.configuration.stream_id === streamId);
    expect(overview!.recent.map((r) => [r.outcome, r.err])).toEqual([
      ["delivered", null],
      ["failed", "invalid_key"],
      ["refused", "invalid_audience"],
    ]);
  });

  it("drops a SET after the last retry, and goes on with the next", async () => {
    const path = freshPath();
    const streamId = await createStream(receivers.siem(), SIEM, path);
    const user = freshUser();
    await answerNext(path, 500, STREAM_RETRY_DELAYS_MS.length + 1);
    await manager().revokeSession(await signIn(user));
    await carryOut(user);
    for (const delay of STREAM_RETRY_DELAYS_MS) {
      now += delay;
      await runDurableObjectAlarm(streamsStub());
    }
    const [overview] = (await streamsStub().overview()).filter((o) => o.configuration.stream_id === streamId);
    expect(overview!.pending).toBe(0);
    expect(overview!.recent[0]).toMatchObject({ outcome: "dropped", attempt: STREAM_RETRY_DELAYS_MS.length + 1 });
    expect(await pushesTo(path)).toHaveLength(STREAM_RETRY_DELAYS_MS.length + 1);
  });

  it("holds SETs while the stream is paused and sends them, in order, once it is enabled", async () => {
    const path = freshPath();
    const siem = receivers.siem();
    const streamId = await createStream(siem, SIEM, path);
    await siem.updateStatus({ stream_id: streamId, status: "paused" });
    const user = freshUser();
    const [a, b] = [await signIn(user), await signIn(user)];
    await manager().revokeSession(a);
    await manager().revokeSession(b);
    await carryOut(user);
    expect(await pushesTo(path)).toEqual([]);
    await siem.updateStatus({ stream_id: streamId, status: "enabled" });
    await runDurableObjectAlarm(streamsStub());
    const sets = await verified(await pushesTo(path), SIEM, now);
    expect(sets.map((s) => sessionOf(s))).toEqual([a, b]);
  });

  it("drops what a disabled stream held and queues nothing more for it", async () => {
    const path = freshPath();
    const siem = receivers.siem();
    const streamId = await createStream(siem, SIEM, path);
    await siem.updateStatus({ stream_id: streamId, status: "paused" });
    const user = freshUser();
    await manager().revokeSession(await signIn(user));
    await carryOut(user);
    await siem.updateStatus({ stream_id: streamId, status: "disabled" });
    await manager().revokeSession(await signIn(user));
    await carryOut(user);
    await siem.updateStatus({ stream_id: streamId, status: "enabled" });
    await runDurableObjectAlarm(streamsStub());
    expect(await pushesTo(path)).toEqual([]);
  });
});

describe("subjects (SSF 1.0 §8.1.3)", () => {
  it("holds back a removed user's events (a simple subject matching the complex one) until added back", async () => {
    const path = freshPath();
    const siem = receivers.siem();
    const streamId = await createStream(siem, SIEM, path);
    const [quiet, loud] = [freshUser(), freshUser()];
    await siem.removeSubject({ stream_id: streamId, subject: userSubject(quiet) });
    await manager().revokeSession(await signIn(quiet));
    await manager().revokeSession(await signIn(loud));
    await carryOut(quiet);
    await carryOut(loud);
    let sets = await verified(await pushesTo(path), SIEM, now);
    expect(sets.map((s) => userOf(s))).toEqual([loud]);
    await siem.addSubject({ stream_id: streamId, subject: userSubject(quiet) });
    await manager().revokeSession(await signIn(quiet));
    await carryOut(quiet);
    sets = await verified(await pushesTo(path), SIEM, now);
    expect(sets.map((s) => userOf(s))).toEqual([loud, quiet]);
  });

  it("holds back a tenant's events when a complex subject with that tenant is removed", async () => {
    const path = freshPath();
    const siem = receivers.siem();
    const streamId = await createStream(siem, SIEM, path);
    await siem.removeSubject({
      stream_id: streamId,
      subject: { format: "complex", tenant: { format: "opaque", id: "org_hidden" } },
    });
    const user = freshUser();
    await signIn(user);
    await joinOrganizations(user, ["org_hidden", "org_shown"], now);
    await carryOut(user);
    const sets = await verified(await pushesTo(path), SIEM, now);
    expect(sets.map((s) => (s.event.claims as { org_id: string }).org_id)).toEqual(["org_shown"]);
  });
});

describe("verification (SSF 1.0 §8.1.4)", () => {
  it("pushes a verification SET naming the stream and echoing the state", async () => {
    const path = freshPath();
    const siem = receivers.siem();
    const streamId = await createStream(siem, SIEM, path);
    expect((await siem.verify({ stream_id: streamId, state: "c3RhdGUtMQ" })).status).toBe(204);
    await runDurableObjectAlarm(streamsStub());
    const [set] = await verified(await pushesTo(path), SIEM, now);
    expectVerificationEvent(set!, streamId, "c3RhdGUtMQ");
    // Without a state, the event carries none.
    now += 31_000;
    expect((await siem.verify({ stream_id: streamId })).status).toBe(204);
    await runDurableObjectAlarm(streamsStub());
    const [, second] = await verified(await pushesTo(path), SIEM, now);
    expect(second!.event).toEqual({});
  });

  it("sends nothing on a disabled stream (the request is still acknowledged)", async () => {
    const path = freshPath();
    const siem = receivers.siem();
    const streamId = await createStream(siem, SIEM, path);
    await siem.updateStatus({ stream_id: streamId, status: "disabled" });
    expect((await siem.verify({ stream_id: streamId, state: "x" })).status).toBe(204);
    await runDurableObjectAlarm(streamsStub());
    expect(await pushesTo(path)).toEqual([]);
  });
});

describe("a receiver removed from configuration", () => {
  it("gets nothing more: its stream is skipped by the hand-off and by the pushes", async () => {
    const path = freshPath();
    await createStream(receivers.siem(), SIEM, path);
    const configured = SsfStreams.endpoints;
    SsfStreams.endpoints = { warehouse: configured.warehouse! };
    try {
      const user = freshUser();
      await manager().revokeSession(await signIn(user));
      await carryOut(user);
      expect(await pushesTo(path)).toEqual([]);
    } finally {
      SsfStreams.endpoints = configured;
    }
  });
});
