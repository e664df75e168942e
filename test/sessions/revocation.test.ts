import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { SessionManager } from "gatehouse-workers/auth";
import { CLOSE_SESSION_REVOKED, type UserSessions } from "gatehouse-workers/durable-objects";
import { setObjectClock } from "gatehouse-workers/testing";
import { describe, expect, it } from "vitest";
import { hasLiveRecord } from "../support/kv-records";
import { freshUser, manager, newSession, openTab, staysOpen, withTimeout } from "./helpers";

const req = (cookie: string) => new Request("https://auth.example.com/", { headers: { Cookie: cookie } });
// A revoked session's record is replaced by a mark naming its user (kept a day): "has" means a live record.
const kvHas = (id: string) => hasLiveRecord(env.SESSIONS, id);
const stubOf = (userId: string) => env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId));

describe("UserSessions: mirroring", () => {
  it("mirrors each new session into the user's object with its details", async () => {
    const sessions = manager();
    const user = freshUser();
    const a = await newSession(sessions, user, { userAgent: "Firefox/140", ip: "203.0.113.7" });
    await newSession(sessions, user);
    const list = await sessions.listSessions(user);
    expect(list).toHaveLength(2);
    const row = list.find((s) => s.id === a.sessionId)!;
    expect(row).toMatchObject({ organizationId: "org_acme", userAgent: "Firefox/140", ip: "203.0.113.7" });
    expect(row.expiresAt).toBeGreaterThan(row.createdAt);
    expect(row.absoluteExpiresAt).toBeGreaterThanOrEqual(row.expiresAt);
  });

  it("keeps the sign-in's session policy on its row; a use slides the expiry, never past the absolute one", async () => {
    const stub = stubOf(freshUser());
    const id = "d".repeat(64);
    const now = Date.now();
    const policy = { maxSessions: 3, onLimit: "refuse-new" as const };
    const span = { createdAt: now, lastSeenAt: now, expiresAt: now + 60_000, absoluteExpiresAt: now + 120_000 };
    expect(await stub.register({ id, ...span, policy })).toMatchObject({ registered: true });
    // The policy module reads the row's policy at each use (policy.ts `slide`).
    await runInDurableObject(stub, (_instance: UserSessions, state) => {
      const row = state.storage.sql.exec<{ policy: string }>("SELECT policy FROM sessions WHERE id = ?", id).one();
      expect(JSON.parse(row.policy)).toEqual(policy);
    });
    await stub.touch(id, now + 1_000, now + 600_000);
    expect(await stub.list()).toMatchObject([{ id, lastSeenAt: now + 1_000, expiresAt: now + 120_000 }]);
  });

  it("logout (destroySession) goes through the object: KV record gone, tombstone kept", async () => {
    const sessions = manager();
    const user = freshUser();
    const s = await newSession(sessions, user);
    await sessions.destroySession(s.sessionId);
    expect(await kvHas(s.sessionId)).toBe(false);
    expect(await sessions.resolveUser(req(s.cookie))).toBeNull();
    const stats = await stubOf(user).stats();
    expect(stats).toMatchObject({ sessions: 0, tombstones: 1, pendingKvDeletes: 0 });
  });
});

describe("UserSessions: revocation fan-out", () => {
  it("revokeActive revokes an active session once, and nothing that is unknown, revoked or expired", async () => {
    const sessions = manager();
    const user = freshUser();
    const s = await newSession(sessions, user);
    const stub = stubOf(user);
    expect(await stub.revokeActive("f".repeat(64))).toBeNull();
    expect(await stub.revokeActive(s.sessionId)).toMatchObject({ revoked: 1 });
    expect(await stub.revokeActive(s.sessionId)).toBeNull();
    const later = await newSession(sessions, user);
    expect(await stub.revokeActive(later.sessionId, Date.now() + 400 * 24 * 3600 * 1000)).toBeNull();
    expect(await stub.isActive(later.sessionId)).toBe(true);
  });

  it("revokes 1 of 3 sessions: its record and its tab go, the others stay", async () => {
    const sessions = manager();
    const user = freshUser();
    const [a, b, c] = [
      await newSession(sessions, user),
      await newSession(sessions, user),
      await newSession(sessions, user),
    ];
    const tabA = await openTab(user, a.cookie);
    const tabA2 = await openTab(user, a.cookie);
    const tabB = await openTab(user, b.cookie);
    const result = await sessions.revokeSession(a.sessionId);
    expect(result).toMatchObject({ revoked: 1, socketsClosed: 2, pendingKvDeletes: 0 });
    const message = await withTimeout(tabA.next("session.revoked"));
    expect(message).toMatchObject({ type: "session.revoked", sessionId: a.sessionId, reason: "revoked" });
    expect((message as { revokedAt: Date }).revokedAt).toBeInstanceOf(Date); // superjson keeps the Date
    expect((await withTimeout(tabA.closed)).code).toBe(CLOSE_SESSION_REVOKED);
    expect((await withTimeout(tabA2.closed)).code).toBe(CLOSE_SESSION_REVOKED);
    expect(await staysOpen(tabB)).toBe("open");
    expect(await kvHas(a.sessionId)).toBe(false);
    expect(await kvHas(b.sessionId)).toBe(true);
    expect(await kvHas(c.sessionId)).toBe(true);
    expect(await sessions.resolveUser(req(a.cookie))).toBeNull();
    expect(await sessions.resolveUser(req(b.cookie))).not.toBeNull();
  });

  it("revokes all: every record and every tab of the user", async () => {
    const sessions = manager();
    const user = freshUser();
    const all = [await newSession(sessions, user), await newSession(sessions, user), await newSession(sessions, user)];
    const tabs = await Promise.all(all.map((s) => openTab(user, s.cookie)));
    const result = await sessions.revokeUser(user);
    expect(result).toMatchObject({ revoked: 3, socketsClosed: 3 });
    for (const tab of tabs) expect((await withTimeout(tab.closed)).code).toBe(CLOSE_SESSION_REVOKED);
    for (const s of all) expect(await kvHas(s.sessionId)).toBe(false);
    expect(await sessions.listSessions(user)).toEqual([]);
  });

  it("revokes all but the current one ('sign out everywhere else')", async () => {
    const sessions = manager();
    const user = freshUser();
    const current = await newSession(sessions, user);
    const other = await newSession(sessions, user);
    const currentTab = await openTab(user, current.cookie);
    const otherTab = await openTab(user, other.cookie);
    const result = await sessions.revokeOtherSessions(user, current.sessionId);
    expect(result.revoked).toBe(1);
    expect((await withTimeout(otherTab.next("session.revoked"))).type).toBe("session.revoked");
    expect(await staysOpen(currentTab)).toBe("open");
    expect(await sessions.resolveUser(req(current.cookie))).not.toBeNull();
    expect(await sessions.resolveUser(req(other.cookie))).toBeNull();
  });

  it("does not touch other users' sessions or tabs", async () => {
    const sessions = manager();
    const alice = freshUser();
    const bob = freshUser();
    const a = await newSession(sessions, alice);
    const b = await newSession(sessions, bob);
    const bobTab = await openTab(bob, b.cookie);
    await sessions.revokeUser(alice);
    expect(await staysOpen(bobTab)).toBe("open");
    expect(await sessions.resolveUser(req(b.cookie))).not.toBeNull();
    expect(await sessions.resolveUser(req(a.cookie))).toBeNull();
  });
});

describe("strict versus eventual revocation", () => {
  it("strict refuses a revoked session whose KV record another location still serves; eventual accepts it", async () => {
    const strict = manager("strict");
    const eventual = manager("eventual");
    const user = freshUser();
    const s = await newSession(strict, user);
    const stale = await env.SESSIONS.get(`sess:${s.sessionId}`);
    await strict.revokeSession(s.sessionId);
    // Simulate a location whose KV cache still holds the record (KV propagation takes up to ~60 s).
    await env.SESSIONS.put(`sess:${s.sessionId}`, stale!, { expirationTtl: 120 });
    expect(await strict.resolveUser(req(s.cookie))).toBeNull();
    expect(await eventual.resolveUser(req(s.cookie))).not.toBeNull();
  });

  it("a sliding refresh racing a revocation does not bring the KV record back (eventual)", async () => {
    const user = freshUser();
    const s = await newSession(manager("strict"), user);
    // The real binding; its put lets the revocation land between the slide's read and its write.
    let revokeFirst = true;
    const racingKV = {
      get: env.SESSIONS.get.bind(env.SESSIONS),
      delete: env.SESSIONS.delete.bind(env.SESSIONS),
      async put(...args: Parameters<KVNamespace["put"]>) {
        if (revokeFirst) {
          revokeFirst = false;
          await stubOf(user).revoke(s.sessionId, "revoked");
        }
        return env.SESSIONS.put(...args);
      },
    } as unknown as KVNamespace;
    const later = Date.now() + 2 * 3600 * 1000;
    const sliding = new SessionManager(racingKV, env.SESSION_SECRET, {
      userSessions: env.USER_SESSIONS,
      revocation: "eventual",
      clock: () => later,
    });
    expect(await sliding.resolveUser(req(s.cookie))).not.toBeNull(); // read before the revocation
    expect(revokeFirst).toBe(false);
    await runDurableObjectAlarm(stubOf(user));
    expect(await kvHas(s.sessionId)).toBe(false);
    expect(await manager("eventual").resolveUser(req(s.cookie))).toBeNull();
  });

  it("defaults to strict when the session objects are configured", () => {
    expect(manager(undefined as never).config.revocation).toBe("strict");
  });
});

describe("large revocations continue in later invocations", () => {
  it("with a batch of 7, revoking 20 sessions leaves 13 KV deletes to the alarm, yet all are invalid at once", async () => {
    const sessions = manager();
    const user = freshUser();
    const all: { sessionId: string; cookie: string }[] = [];
    for (let i = 0; i < 20; i++) all.push(await newSession(sessions, user));
    const result = await sessions.revokeUser(user);
    expect(result).toMatchObject({ revoked: 20, pendingKvDeletes: 13 });
    // Tombstones already make every one invalid in strict mode, records or not.
    for (const s of all) expect(await sessions.resolveUser(req(s.cookie))).toBeNull();
    const remaining = async () => (await Promise.all(all.map((s) => kvHas(s.sessionId)))).filter(Boolean).length;
    expect(await remaining()).toBe(13);
    const stub = stubOf(user);
    while ((await stub.stats()).pendingKvDeletes > 0) await runDurableObjectAlarm(stub);
    expect(await remaining()).toBe(0);
  });
});

describe("storage stays bounded and survives eviction", () => {
  it("the alarm purges expired rows and tombstones", async () => {
    const user = freshUser();
    const stub = stubOf(user);
    const now = Date.now();
    await stub.register({
      id: "a".repeat(64),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 30,
      absoluteExpiresAt: now + 30,
    });
    await stub.register({
      id: "b".repeat(64),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 60_000,
      absoluteExpiresAt: now + 60_000,
    });
    await stub.revoke("c".repeat(64));
    await runInDurableObject(stub, (_instance: UserSessions, state) => {
      state.storage.sql.exec("UPDATE tombstones SET expires_at = ?", now + 30);
    });
    // One second later by the objects' clock: "a" and the tombstone have expired, "b" has not.
    setObjectClock(() => now + 1_000);
    try {
      await runDurableObjectAlarm(stub);
    } finally {
      setObjectClock(null);
    }
    expect(await stub.stats()).toMatchObject({ sessions: 1, tombstones: 0 });
    expect((await stub.list()).map((s) => s.id)).toEqual(["b".repeat(64)]);
  });

  it("keeps sessions and tombstones across eviction", async () => {
    const sessions = manager();
    const user = freshUser();
    const a = await newSession(sessions, user);
    const b = await newSession(sessions, user);
    await sessions.revokeSession(b.sessionId);
    const stub = stubOf(user);
    await evictDurableObject(stub);
    expect((await stub.list()).map((s) => s.id)).toEqual([a.sessionId]);
    expect(await stub.isActive(b.sessionId)).toBe(false);
    expect(await stub.stats()).toMatchObject({ sessions: 1, tombstones: 1 });
    expect(await sessions.resolveUser(req(a.cookie))).not.toBeNull();
  });

  it("refuses to re-register a revoked session id", async () => {
    const user = freshUser();
    const stub = stubOf(user);
    const now = Date.now();
    const id = "d".repeat(64);
    await stub.revoke(id);
    expect(
      await stub.register({
        id,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: now + 60_000,
        absoluteExpiresAt: now + 60_000,
      }),
    ).toEqual({
      registered: false,
      refusedBecause: "revoked",
    });
    expect(await stub.isActive(id)).toBe(false);
  });
});
