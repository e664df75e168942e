// Each handled event type, end to end through the route and the user's session object:
// session.revoked and user.deleted revoke (KV, tombstone, tabs); membership events rewrite the
// memberships of every live session (KV record, `session.updated` to its tabs). Replays act once,
// late (out-of-order) membership events lose, and large rewrites continue by alarm.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { setObjectClock } from "gatehouse-workers/testing";
import { describe, expect, it } from "vitest";
import { openTab, staysOpen, withTimeout } from "../sessions/helpers";
import { hasLiveRecord, revokedMarkOwner } from "../support/kv-records";
import {
  ACME,
  applyDirect,
  freshEventId,
  freshUser,
  GLOBEX,
  manager,
  membershipData,
  newSession,
  sendEvent,
  sessionData,
  storedMemberships,
  stubOf,
} from "./helpers";

const acme = (role: string) => ({ organizationId: ACME, organizationSlug: "acme", role });
const req = (cookie: string) => new Request("https://auth.example.com/", { headers: { Cookie: cookie } });

/**
 * Runs the user's alarm with the objects' clock moved past the one-second spacing between KV
 * writes to one key (queued rewrites wait for it), instead of sleeping that second.
 */
async function alarmAfterWriteSpacing(user: string): Promise<void> {
  const later = Date.now() + 1_100;
  setObjectClock(() => later);
  try {
    await runDurableObjectAlarm(stubOf(user));
  } finally {
    setObjectClock(null);
  }
}

describe("session.revoked", () => {
  it("revokes the session opened with that provider session, with the local fan-out", async () => {
    const user = freshUser();
    const target = await newSession(user, "session_01PROVIDERTARGET");
    const other = await newSession(user, "session_01PROVIDEROTHER");
    const tab = await openTab(user, target.cookie);
    const otherTab = await openTab(user, other.cookie);
    const { res, body } = await sendEvent("session.revoked", sessionData(user, "session_01PROVIDERTARGET"));
    expect(res.status).toBe(200);
    expect(body).toEqual({ received: true, handled: true });
    expect(await withTimeout(tab.next("session.revoked"))).toMatchObject({
      sessionId: target.sessionId,
      reason: "provider",
    });
    expect((await withTimeout(tab.closed)).code).toBe(4001);
    expect(await revokedMarkOwner(env.SESSIONS, target.sessionId)).toBe(user);
    expect(await manager().resolveUser(req(target.cookie))).toBeNull();
    expect(await stubOf(user).stats()).toMatchObject({ sessions: 1, tombstones: 1 });
    // The other provider session is untouched.
    expect((await manager().resolveUser(req(other.cookie)))?.id).toBe(user);
    expect(await staysOpen(otherTab)).toBe("open");
  });

  it("is a no-op for a provider session this user does not have", async () => {
    const user = freshUser();
    const s = await newSession(user, "session_01MINE");
    await sendEvent("session.revoked", sessionData(user, "session_01NOTMINE"));
    expect((await manager().resolveUser(req(s.cookie)))?.id).toBe(user);
  });
});

describe("user.deleted", () => {
  it("revokes every session of the user and closes every tab (reason user_deleted)", async () => {
    const user = freshUser();
    const a = await newSession(user, "session_01A");
    const b = await newSession(user, "session_01B");
    const tabA = await openTab(user, a.cookie);
    const tabB = await openTab(user, b.cookie);
    await sendEvent("user.deleted", { object: "user", id: user, email: `${user}@acme.test` });
    for (const tab of [tabA, tabB]) {
      expect(await withTimeout(tab.next("session.revoked"))).toMatchObject({ reason: "user_deleted" });
      expect((await withTimeout(tab.closed)).code).toBe(4001);
    }
    for (const s of [a, b]) {
      expect(await hasLiveRecord(env.SESSIONS, s.sessionId)).toBe(false);
      expect(await manager().resolveUser(req(s.cookie))).toBeNull();
    }
    expect(await stubOf(user).stats()).toMatchObject({ sessions: 0, tombstones: 2, sockets: 0 });
  });
});

describe("organization_membership events", () => {
  it("updated: every live session carries the new role, and its tabs get session.updated", async () => {
    const user = freshUser();
    const a = await newSession(user);
    const b = await newSession(user);
    const tab = await openTab(user, a.cookie);
    const { res } = await sendEvent("organization_membership.updated", membershipData(user, "member"));
    expect(res.status).toBe(200);
    expect(await storedMemberships(a.sessionId)).toEqual([acme("member")]);
    expect(await storedMemberships(b.sessionId)).toEqual([acme("member")]);
    const message = await withTimeout(tab.next("session.updated"));
    expect(message).toMatchObject({ type: "session.updated", sessionId: a.sessionId, memberships: [acme("member")] });
    expect((message as { updatedAt: Date }).updatedAt).toBeInstanceOf(Date); // superjson keeps the Date
    expect(await staysOpen(tab)).toBe("open");
    expect((await manager().resolveUser(req(b.cookie)))?.memberships).toEqual([acme("member")]);
  });

  it("created: adds the organization, its slug looked up at the provider (the local IdP)", async () => {
    const user = freshUser();
    const s = await newSession(user);
    await sendEvent("organization_membership.created", membershipData(user, "admin", { org: GLOBEX }));
    expect(await storedMemberships(s.sessionId)).toEqual([
      acme("admin"),
      { organizationId: GLOBEX, organizationSlug: "globex", role: "admin" },
    ]);
  });

  it("created for an organization the provider does not know: nothing is guessed (fail safe)", async () => {
    const user = freshUser();
    const s = await newSession(user);
    await sendEvent("organization_membership.created", membershipData(user, "admin", { org: "org_01NOSUCHORG" }));
    expect(await storedMemberships(s.sessionId)).toEqual([acme("admin")]);
  });

  it("deleted: removes the organization from every live session", async () => {
    const user = freshUser();
    const s = await newSession(user);
    await sendEvent("organization_membership.deleted", membershipData(user, "admin"));
    expect(await storedMemberships(s.sessionId)).toEqual([]);
  });

  it("deleted: a session whose current organization it was names no organization any more, and its tabs hear it (issue 26)", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const tab = await openTab(user, s.cookie);
    expect((await manager().resolveSession(req(s.cookie)))?.user.organizationId).toBe(ACME);
    await sendEvent("organization_membership.deleted", membershipData(user, "admin"));
    const resolved = await manager().resolveSession(req(s.cookie));
    expect(resolved?.user.organizationId ?? null).toBeNull();
    expect(resolved?.user.memberships).toEqual([]);
    expect(await withTimeout(tab.next("session.updated"))).toMatchObject({ sessionId: s.sessionId, memberships: [] });
    const listed = (await manager().listSessions(user)).find((x) => x.id === s.sessionId);
    expect(listed?.organizationId).toBeNull();
    // Another organization's removal leaves the current one alone.
    const t = await newSession(user);
    await sendEvent("organization_membership.deleted", membershipData(user, "admin", { org: GLOBEX }));
    expect((await manager().resolveSession(req(t.cookie)))?.user.organizationId).toBe(ACME);
  });

  it("keeps the organization's member index and the user's timeline (once per event id, redelivered or not)", async () => {
    const user = freshUser();
    await newSession(user);
    const org = env.ORGANIZATIONS.get(env.ORGANIZATIONS.idFromName(GLOBEX));
    const before = await org.memberCount();
    const id = freshEventId();
    await sendEvent("organization_membership.created", membershipData(user, "admin", { org: GLOBEX }), { id });
    await sendEvent("organization_membership.created", membershipData(user, "admin", { org: GLOBEX }), { id });
    expect(await org.memberCount()).toBe(before + 1);
    const changes = async () =>
      (await manager().timeline(user)).events.filter((e) => e.type === "membership.changed").map((e) => e.detail);
    expect(await changes()).toEqual([
      { change: "created", organizationId: GLOBEX, organizationSlug: "globex", role: "admin" },
    ]);
    await sendEvent("organization_membership.deleted", membershipData(user, "admin", { org: GLOBEX }));
    expect(await org.memberCount()).toBe(before);
    expect((await changes()).map((d) => d.change)).toEqual(["deleted", "created"]);
  });

  it("updated to a status other than active (inactive) removes the membership", async () => {
    const user = freshUser();
    const s = await newSession(user);
    await sendEvent("organization_membership.updated", membershipData(user, "admin", { status: "inactive" }));
    expect(await storedMemberships(s.sessionId)).toEqual([]);
  });

  it("leaves revoked sessions revoked (no KV record comes back)", async () => {
    const user = freshUser();
    const gone = await newSession(user);
    const live = await newSession(user);
    await manager().revokeSession(gone.sessionId);
    await sendEvent("organization_membership.updated", membershipData(user, "member"));
    expect(await hasLiveRecord(env.SESSIONS, gone.sessionId)).toBe(false);
    expect(await storedMemberships(live.sessionId)).toEqual([acme("member")]);
  });
});

describe("idempotency and order", () => {
  it("a replayed event acts once: the same id delivered again changes nothing", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const id = freshEventId();
    await sendEvent("organization_membership.updated", membershipData(user, "member"), { id });
    expect(await storedMemberships(s.sessionId)).toEqual([acme("member")]);
    // Someone changes the record afterwards; a replay of the old event must not undo that.
    const record = (await env.SESSIONS.get<Record<string, unknown>>(`sess:${s.sessionId}`, "json"))!;
    await env.SESSIONS.put(`sess:${s.sessionId}`, JSON.stringify({ ...record, memberships: [acme("owner")] }));
    const replay = await sendEvent("organization_membership.updated", membershipData(user, "member"), { id });
    expect(replay.res.status).toBe(200);
    expect(await storedMemberships(s.sessionId)).toEqual([acme("owner")]);
    expect(await stubOf(user).providerEventStats()).toMatchObject({ processedEvents: 1 });
  });

  it("two concurrent deliveries of one id: one applies, the other is a duplicate", async () => {
    const user = freshUser();
    await newSession(user);
    const event = {
      id: freshEventId(),
      type: "organization_membership.updated" as const,
      occurredAt: Date.now(),
      organizationId: ACME,
      organizationSlug: "acme",
      role: "member",
    };
    const outcomes = (await Promise.all([applyDirect(user, event), applyDirect(user, event)])).map((r) => r.outcome);
    expect(outcomes.sort()).toEqual(["applied", "duplicate"]);
  });

  it("a replayed session.revoked after the user signed in again does not revoke the new session", async () => {
    const user = freshUser();
    const id = freshEventId();
    await newSession(user, "session_01OLD");
    await sendEvent("session.revoked", sessionData(user, "session_01OLD"), { id });
    const again = await newSession(user, "session_01OLD"); // only to prove the replay is not re-applied
    await sendEvent("session.revoked", sessionData(user, "session_01OLD"), { id });
    expect((await manager().resolveUser(req(again.cookie)))?.id).toBe(user);
  });

  it("an older event arriving after a newer one about the same membership is stale", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const now = Date.now();
    await sendEvent("organization_membership.updated", membershipData(user, "member"), { at: now });
    const late = await applyDirect(user, {
      id: freshEventId(),
      type: "organization_membership.updated",
      occurredAt: now - 1_000,
      organizationId: ACME,
      organizationSlug: "acme",
      role: "admin",
    });
    expect(late.outcome).toBe("stale");
    expect(await storedMemberships(s.sessionId)).toEqual([acme("member")]);
  });
});

describe("bounded work", () => {
  it("rewrites 3 sessions per invocation (GATEHOUSE_REWRITE_BATCH) and the rest by alarm", async () => {
    const user = freshUser();
    const sessions = [];
    for (let i = 0; i < 8; i++) sessions.push(await newSession(user));
    const first = await applyDirect(user, {
      id: freshEventId(),
      type: "organization_membership.updated",
      occurredAt: Date.now(),
      organizationId: ACME,
      organizationSlug: null,
      role: "member",
    });
    expect(first).toMatchObject({ outcome: "applied", sessionsQueued: 8, sessionsRewritten: 3, pendingRewrites: 5 });
    const stub = stubOf(user);
    for (let i = 0; i < 5 && (await stub.providerEventStats()).pendingRewrites > 0; i++) {
      await runDurableObjectAlarm(stub);
    }
    expect((await stub.providerEventStats()).pendingRewrites).toBe(0);
    for (const s of sessions) expect(await storedMemberships(s.sessionId)).toEqual([acme("member")]);
  });

  it("a session that signs in just after a change (from older provider data) gets it re-applied", async () => {
    const user = freshUser();
    await newSession(user);
    await sendEvent("organization_membership.updated", membershipData(user, "member"));
    // This login read the provider before the change: it still says admin.
    const late = await newSession(user);
    expect(await storedMemberships(late.sessionId)).toEqual([acme("admin")]);
    await alarmAfterWriteSpacing(user); // one KV write per key per second

    expect(await storedMemberships(late.sessionId)).toEqual([acme("member")]);
  });

  it("a sliding refresh that wrote stale memberships back is repaired (touch)", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const stale = (await env.SESSIONS.get<Record<string, unknown>>(`sess:${s.sessionId}`, "json"))!;
    await sendEvent("organization_membership.updated", membershipData(user, "member"));
    // What SessionManager's slide does from a record read before the change: put it back, touch the object.
    await env.SESSIONS.put(`sess:${s.sessionId}`, JSON.stringify(stale));
    const now = Date.now();
    await stubOf(user).touch(s.sessionId, now, now + 3600_000);
    await alarmAfterWriteSpacing(user);

    expect(await storedMemberships(s.sessionId)).toEqual([acme("member")]);
  });
});
