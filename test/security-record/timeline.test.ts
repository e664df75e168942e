/**
 * Every kind of timeline event is recorded, and recorded once: sign-in and new device (also when
 * the mirror is registered twice, and under 20 concurrent sign-ins), sign-out, revocation with who
 * did it (the person, an admin token's label, the identity provider, the session cap), a membership
 * change (replayed: once), a revoked cookie presented again (attributed to its user through the KV
 * mark, throttled across isolates), and a rate-limit lockout (throttled per route family).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ATTEMPT_THROTTLE_MS } from "../../durable-objects/user-sessions";
import { REFUSED_GRACE_MS } from "../../workers/auth/session/session-manager";
import { revokedMarkOwner } from "../support/kv-records";
import {
  admin,
  allEvents,
  atObjectTime,
  BERLIN,
  eventsOf,
  FIREFOX_140_MAC,
  freshAddress,
  freshUser,
  manager,
  PARIS,
  requestWith,
  SAFARI_IPHONE,
  SECOPS_TOKEN,
  signIn,
  stubOf,
} from "./helpers";

describe("sign-in and new device", () => {
  it("records one session.signed_in per session and one session.new_device per new pair, with where it came from", async () => {
    const user = freshUser();
    const sessions = manager();
    const first = await signIn(sessions, user, { userAgent: FIREFOX_140_MAC, ip: "198.51.100.4", location: BERLIN });
    const second = await signIn(sessions, user, { userAgent: FIREFOX_140_MAC, location: BERLIN });
    const events = await allEvents(user);
    expect(events.map((e) => e.type)).toEqual(["session.signed_in", "session.new_device", "session.signed_in"]);
    const [latest, newDevice, signedIn] = events;
    expect(latest).toMatchObject({ sessionId: second.sessionId, detail: { newDevice: false } });
    expect(signedIn).toMatchObject({
      userId: user,
      sessionId: first.sessionId,
      device: "Firefox 140 on macOS",
      ip: "198.51.100.4",
      location: BERLIN,
      actor: null,
      detail: { organizationId: "org_acme", newDevice: true },
    });
    expect(newDevice).toMatchObject({ sessionId: first.sessionId, device: "Firefox 140 on macOS", location: BERLIN });
    // Ids are unique and the sequence only grows (the cursor and the webhook's idempotency key rely on both).
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => b - a));
  });

  it("a mirror registered twice (a retried call) records its sign-in once", async () => {
    const user = freshUser();
    const now = Date.now();
    const mirror = {
      id: "e".repeat(64),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 3_600_000,
      absoluteExpiresAt: now + 3_600_000,
      device: "Safari 18 on iOS",
      deviceClass: "Safari on iOS",
      location: PARIS,
    };
    expect(await stubOf(user).register(mirror)).toMatchObject({ registered: true, newDevice: true });
    expect(await stubOf(user).register(mirror)).toMatchObject({ registered: true, newDevice: false });
    expect((await allEvents(user)).map((e) => e.type)).toEqual(["session.new_device", "session.signed_in"]);
  });

  it("20 concurrent sign-ins from one device: exactly 20 sign-ins and one new device", async () => {
    const user = freshUser();
    const sessions = manager();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => signIn(sessions, user, { userAgent: SAFARI_IPHONE, location: PARIS })),
    );
    expect(results.filter((r) => r.newDevice)).toHaveLength(1);
    const signIns = await eventsOf(user, "session.signed_in");
    expect(signIns.map((e) => e.sessionId).sort()).toEqual(results.map((r) => r.sessionId).sort());
    const newDevices = await eventsOf(user, "session.new_device");
    expect(newDevices).toHaveLength(1);
    expect(newDevices[0]!.sessionId).toBe(results.find((r) => r.newDevice)!.sessionId);
    expect(await stubOf(user).devices()).toEqual([
      expect.objectContaining({ device: "Safari 18 on iOS", location: PARIS, sessions: 20 }),
    ]);
  });
});

describe("sign-out and revocations name who acted", () => {
  it("sign-out: one session.signed_out by the user, with a receipt", async () => {
    const user = freshUser();
    const sessions = manager();
    const s = await signIn(sessions, user);
    await sessions.destroySession(s.sessionId);
    await sessions.destroySession(s.sessionId); // a second sign-out of the same session changes nothing
    const out = await eventsOf(user, "session.signed_out");
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      sessionId: s.sessionId,
      actor: { kind: "user" },
      detail: { reason: "logout", sessions: 1 },
    });
    expect(out[0]!.detail.receiptId).toMatch(/^rcpt\.u\./);
    expect(await eventsOf(user, "session.revoked")).toEqual([]);
  });

  it("the person, an admin (by its token's label) and the identity provider", async () => {
    const user = freshUser();
    const sessions = manager();
    const keep = await signIn(sessions, user);
    for (let i = 0; i < 4; i++) await signIn(sessions, user);

    const self = await sessions.revokeOtherSessions(user, keep.sessionId);
    expect(self.revoked).toBe(4);
    // Sessions already gone: nothing more to revoke, nothing more recorded.
    expect((await sessions.revokeOtherSessions(user, keep.sessionId)).revoked).toBe(0);
    const events = await eventsOf(user, "session.revoked");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actor: { kind: "user" }, detail: { sessions: 4, receiptId: self.receiptId! } });

    // The rest of the cases each need live sessions again.
    const a = await signIn(sessions, user);
    const b = await signIn(sessions, user);
    const p = await signIn(sessions, user, { providerSessionId: "session_01PROVIDER2" });
    expect((await admin("DELETE", `/admin/sessions/${a.sessionId}`, { token: SECOPS_TOKEN })).status).toBe(200);
    expect((await admin("DELETE", `/admin/sessions/${b.sessionId}`)).status).toBe(200);
    const provider = await stubOf(user).applyProviderEvent({
      id: "event_01PROVIDERREVOKE",
      type: "session.revoked",
      occurredAt: Date.now(),
      providerSessionId: "session_01PROVIDER2",
    });
    expect(provider).toMatchObject({ outcome: "applied", revoked: 1 });
    // The provider's retry of the same event is a duplicate: nothing is recorded twice.
    await stubOf(user).applyProviderEvent({
      id: "event_01PROVIDERREVOKE",
      type: "session.revoked",
      occurredAt: Date.now(),
      providerSessionId: "session_01PROVIDER2",
    });

    const bySession = new Map((await eventsOf(user, "session.revoked")).map((e) => [e.sessionId, e]));
    expect(bySession.get(a.sessionId)?.actor).toEqual({ kind: "admin", label: "secops" });
    expect(bySession.get(b.sessionId)?.actor).toEqual({ kind: "admin", label: "admin" });
    expect(bySession.get(p.sessionId)?.actor).toEqual({ kind: "provider", label: "session.revoked" });
    expect(await eventsOf(user, "session.revoked")).toHaveLength(4);
    expect((await sessions.listSessions(user)).map((x) => x.id)).toEqual([keep.sessionId]);
  });

  it("the session cap: the evicted session is revoked by the policy", async () => {
    const user = freshUser();
    const sessions = manager({ sessionPolicy: { maxSessions: 1 } });
    const old = await signIn(sessions, user);
    const current = await signIn(sessions, user);
    const revoked = await eventsOf(user, "session.revoked");
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({
      sessionId: old.sessionId,
      actor: { kind: "policy", label: "max_sessions" },
      detail: { sessions: 1, reason: "revoked" },
    });
    expect((await sessions.listSessions(user)).map((s) => s.id)).toEqual([current.sessionId]);
  });
});

describe("the organization kill switch on a member's timeline", () => {
  it("is recorded once per switch, also when the fan-out reaches the member twice", async () => {
    const user = freshUser();
    const s = await signIn(manager({ clock: () => Date.now() - 60_000 }), user);
    const epoch = Date.now();
    const actor = { kind: "kill_switch" as const, label: "ops" };
    const first = await stubOf(user).endForOrganization("org_switch", epoch, actor);
    const retried = await stubOf(user).endForOrganization("org_switch", epoch, actor);
    expect([first.revoked, retried.revoked]).toEqual([1, 0]);
    const ended = await eventsOf(user, "organization.sessions_ended");
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ actor, detail: { organizationId: "org_switch", epoch } });
    const revoked = await eventsOf(user, "session.revoked");
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({ sessionId: s.sessionId, actor });
  });
});

describe("membership changes", () => {
  it("records one membership.changed per provider event, however often it is delivered", async () => {
    const user = freshUser();
    await signIn(manager(), user);
    const event = {
      id: "event_01MEMBERSHIP",
      type: "organization_membership.updated" as const,
      occurredAt: Date.now(),
      organizationId: "org_acme",
      organizationSlug: "acme",
      role: "admin",
    };
    const results = await Promise.all([1, 2, 3].map(() => stubOf(user).applyProviderEvent(event)));
    expect(results.map((r) => r.outcome).sort()).toEqual(["applied", "duplicate", "duplicate"]);
    const changes = await eventsOf(user, "membership.changed");
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      actor: { kind: "provider" },
      detail: { change: "updated", organizationId: "org_acme", organizationSlug: "acme", role: "admin" },
    });
  });
});

describe("refused use of a revoked session", () => {
  it("is attributed to its user through the KV mark, and recorded once per window across isolates", async () => {
    const user = freshUser();
    const sessions = manager();
    const s = await signIn(sessions, user);
    await sessions.revokeSession(s.sessionId);
    expect(await revokedMarkOwner(env.SESSIONS, s.sessionId)).toBe(user);

    // Within the grace period it is the revoked browser's own last requests: nothing is reported.
    expect(await manager().resolveSession(requestWith(s.cookie))).toBeNull();
    expect(await eventsOf(user, "session.refused")).toEqual([]);

    // Two isolates (two managers, each with its own memory of what it reported) within one window.
    const windowStart = Math.floor(Date.now() / ATTEMPT_THROTTLE_MS) * ATTEMPT_THROTTLE_MS;
    const seenFrom = { "User-Agent": SAFARI_IPHONE, "CF-Connecting-IP": "192.0.2.66" };
    const later = () => Date.now() + REFUSED_GRACE_MS;
    const located = { location: () => PARIS, clock: later };
    await atObjectTime(windowStart + 1_000, async () => {
      expect(await manager(located).resolveSession(requestWith(s.cookie, seenFrom))).toBeNull();
      expect(await manager(located).resolveSession(requestWith(s.cookie, seenFrom))).toBeNull();
    });
    const first = await eventsOf(user, "session.refused");
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      sessionId: s.sessionId,
      ip: "192.0.2.66",
      device: "Safari 18 on iOS",
      location: PARIS,
      detail: { reason: "revoked" },
    });

    // The next window records the next attempt.
    await atObjectTime(windowStart + ATTEMPT_THROTTLE_MS + 1_000, async () => {
      expect(await manager({ clock: later }).resolveSession(requestWith(s.cookie))).toBeNull();
    });
    expect(await eventsOf(user, "session.refused")).toHaveLength(2);
  });

  it("one isolate reports a cookie it already reported at most once per 10 minutes (no round trip)", async () => {
    const user = freshUser();
    const sessions = manager();
    const s = await signIn(sessions, user);
    await sessions.revokeSession(s.sessionId);
    let now = Date.now() + REFUSED_GRACE_MS;
    const isolate = manager({ clock: () => now });
    const refusedCount = async () => (await eventsOf(user, "session.refused")).length;
    expect(await isolate.resolveUser(requestWith(s.cookie))).toBeNull();
    expect(await refusedCount()).toBe(1);
    // The object's own throttle would drop a second report anyway; the isolate does not even send it:
    // with the object's window moved on, only a report that was sent can show up.
    const windowAhead = Math.floor(Date.now() / ATTEMPT_THROTTLE_MS + 1) * ATTEMPT_THROTTLE_MS + 1_000;
    await atObjectTime(windowAhead, async () => {
      now += ATTEMPT_THROTTLE_MS - 1;
      expect(await isolate.resolveUser(requestWith(s.cookie))).toBeNull();
      expect(await refusedCount()).toBe(1);
      now += 1;
      expect(await isolate.resolveUser(requestWith(s.cookie))).toBeNull();
      expect(await refusedCount()).toBe(2);
    });
  });
});

describe("rate-limit lockouts", () => {
  it("records one ratelimit.lockout per session and route family per window", async () => {
    const user = freshUser();
    const sessions = manager();
    const s = await signIn(sessions, user);
    const resolved = (await sessions.resolveSession(requestWith(s.cookie)))!;
    const windowStart = Math.floor(Date.now() / ATTEMPT_THROTTLE_MS) * ATTEMPT_THROTTLE_MS;
    await atObjectTime(windowStart + 5_000, async () => {
      await sessions.recordLockout(resolved, "auth", 30, "192.0.2.9");
      await sessions.recordLockout(resolved, "auth", 29, "192.0.2.9");
      await sessions.recordLockout(resolved, "admin", 60, "192.0.2.9");
    });
    const lockouts = await eventsOf(user, "ratelimit.lockout");
    expect(lockouts.map((e) => e.detail)).toEqual([
      { family: "admin", retryAfter: 60 },
      { family: "auth", retryAfter: 30 },
    ]);
    expect(lockouts[1]).toMatchObject({ sessionId: s.sessionId, ip: "192.0.2.9" });
  });

  it("a request carrying a session that a route limit refuses reaches its user's timeline once (through the worker)", async () => {
    const user = freshUser();
    const s = await signIn(manager(), user);
    const ip = freshAddress();
    // One fixed window of the admin limit (60 per minute per address), by the objects' clock.
    const windowStart = Math.ceil(Date.now() / 60_000) * 60_000;
    const statuses = await atObjectTime(windowStart + 1, async () => {
      const seen: number[] = [];
      for (let i = 0; i < 63; i++) {
        seen.push((await admin("GET", `/admin/users/${user}/devices`, { token: null, ip, cookie: s.cookie })).status);
      }
      return seen;
    });
    expect(statuses.slice(0, 60).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(60)).toEqual([429, 429, 429]);
    const lockouts = await eventsOf(user, "ratelimit.lockout");
    expect(lockouts).toHaveLength(1);
    expect(lockouts[0]).toMatchObject({ sessionId: s.sessionId, ip, detail: { family: "admin" } });
    expect(Number(lockouts[0]!.detail.retryAfter)).toBeGreaterThan(0);
  });
});
