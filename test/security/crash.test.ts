/**
 * Issue 14 finding 9: the object dies right after it committed a multi-step job, before its
 * inline KV work finishes. On restart, without any new request for that user, its alarm must
 * resume the job. A revocation of 1,000 sessions: every session refused and every `sess:` record
 * gone, in both consistency modes. A membership rewrite: every record carries the new role.
 * Before the fix the alarm still pointed at the earliest session expiry (7 days out), so nothing
 * resumed them (`runDurableObjectAlarm` runs an alarm whenever it is set: the alarm's time is
 * what the tests check before running it).
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { type RevocationMode, SessionManager } from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";
import { CONTINUATION_GUARD_MS, type UserSessions } from "../../durable-objects/user-sessions";
import { identity } from "../sessions/helpers";

const SESSIONS = 1_000;
/** `GATEHOUSE_REVOCATION_BATCH` in test/security/wrangler.toml: the inline run deletes at most this many. */
const INLINE_BATCH = Number(env.GATEHOUSE_REVOCATION_BATCH);
const PARALLEL = 50;

function manager(revocation: RevocationMode): SessionManager {
  return new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS, revocation });
}

const objectOf = (userId: string) => env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId));

/** Runs `fn` over `items`, `PARALLEL` at a time. */
async function inBatches<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += PARALLEL)
    out.push(...(await Promise.all(items.slice(i, i + PARALLEL).map(fn))));
  return out;
}

/** Signs the user in `count` times; returns each session's cookie and id. */
async function signIn(sessions: SessionManager, userId: string, count: number) {
  return inBatches(Array.from({ length: count }), async () => {
    const { sessionId, response } = await sessions.createSession(identity(userId), "org_acme");
    return { sessionId, cookie: response.headers.get("Set-Cookie")!.split(";")[0]! };
  });
}

/** Live session records of the user in KV (a revoked session's key holds a mark, metadata `revoked`). */
async function kvRecords(userId: string): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await env.SESSIONS.list<{ userId: string; revoked?: true }>({
      prefix: "sess:",
      ...(cursor ? { cursor } : {}),
    });
    n += page.keys.filter((k) => k.metadata?.userId === userId && !k.metadata.revoked).length;
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  return n;
}

/**
 * Starts `job` in the object, waits until its first storage commit is durable, then kills the
 * object while the job's inline KV work is still in flight (`abort` resets it: in-memory state
 * and every uncommitted write are lost, as in a process crash).
 */
async function crashDuring(userId: string, job: (instance: UserSessions) => Promise<unknown>): Promise<number> {
  const crashedAt = Date.now();
  await runInDurableObject(objectOf(userId), async (instance: UserSessions, state) => {
    job(instance).catch(() => {});
    await state.storage.sync();
    try {
      state.abort("crash");
    } catch {
      // abort() throws into the caller as well: that is the crash.
    }
  }).catch(() => {});
  return crashedAt;
}

/** What the restarted object (a fresh instance, through a new stub) holds. */
function restarted(userId: string) {
  return runInDurableObject(objectOf(userId), async (instance: UserSessions, state) => ({
    stats: instance.stats(),
    providerStats: instance.providerEventStats(),
    alarm: await state.storage.getAlarm(),
  }));
}

/** No request for this user: only the object's own alarms run, until `done`. */
async function runAlarmsUntil(userId: string, done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100 && !(await done()); i++) expect(await runDurableObjectAlarm(objectOf(userId))).toBe(true);
  expect(await done()).toBe(true);
}

describe("finding 9: a crash right after a revocation commits", () => {
  it.each(["strict", "eventual"] as const)(
    "%s mode: the restarted object resumes the deletes by itself; every session refused, every record gone",
    async (mode) => {
      const userId = `user_crash_${mode}_${Date.now().toString(36)}`;
      const sessions = manager(mode);
      const signedIn = await signIn(sessions, userId, SESSIONS);
      expect(await kvRecords(userId)).toBe(SESSIONS);

      const crashedAt = await crashDuring(userId, (instance) => instance.revokeAll("revoked_all"));

      const after = await restarted(userId);
      // The revocation is durable, and the crash did interrupt the inline batch of deletes.
      expect(after.stats.sessions).toBe(0);
      expect(after.stats.tombstones).toBe(SESSIONS);
      expect(after.stats.pendingKvDeletes).toBeGreaterThan(SESSIONS - INLINE_BATCH);
      // The continuation was committed with it: the alarm is due within the guard, not at an expiry.
      expect(after.alarm).not.toBeNull();
      expect(after.alarm!).toBeLessThanOrEqual(crashedAt + CONTINUATION_GUARD_MS + 1_000);

      const id = env.USER_SESSIONS.idFromName(userId);
      await runAlarmsUntil(userId, async () => (await env.USER_SESSIONS.get(id).stats()).pendingKvDeletes === 0);
      expect(await kvRecords(userId)).toBe(0);
      const users = await inBatches(signedIn, ({ cookie }) =>
        sessions.resolveUser(new Request("https://auth.example.com/", { headers: { Cookie: cookie } })),
      );
      expect(users.filter((u) => u !== null)).toEqual([]);
    },
    120_000,
  );
});

describe("finding 9: a crash right after a membership change is queued", () => {
  it("the restarted object resumes the rewrites by itself; every record gets the new role", async () => {
    const userId = `user_crash_rewrite_${Date.now().toString(36)}`;
    const sessions = manager("strict");
    const signedIn = await signIn(sessions, userId, 200);
    const roles = () =>
      inBatches(signedIn, async ({ sessionId }) => {
        const record = await env.SESSIONS.get<{ memberships: { organizationId: string; role: string }[] }>(
          `sess:${sessionId}`,
          "json",
        );
        return record?.memberships.find((m) => m.organizationId === "org_acme")?.role ?? null;
      });
    expect(new Set(await roles())).toEqual(new Set(["admin"]));

    const crashedAt = await crashDuring(userId, (instance) =>
      instance.applyProviderEvent({
        id: `evt_${userId}`,
        type: "organization_membership.updated",
        occurredAt: Date.now(),
        organizationId: "org_acme",
        organizationSlug: "acme",
        role: "member",
      }),
    );

    const after = await restarted(userId);
    expect(after.providerStats.processedEvents).toBe(1);
    expect(after.providerStats.pendingRewrites).toBeGreaterThan(0);
    expect(after.alarm).not.toBeNull();
    expect(after.alarm!).toBeLessThanOrEqual(crashedAt + CONTINUATION_GUARD_MS + 1_000);

    const stub = objectOf(userId);
    await runAlarmsUntil(userId, async () => (await stub.providerEventStats()).pendingRewrites === 0);
    expect(new Set(await roles())).toEqual(new Set(["member"]));
  }, 60_000);
});
