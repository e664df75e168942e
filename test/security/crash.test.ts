/**
 * Issue 14 finding 9: the object dies right after it committed a revocation of 1,000 sessions,
 * before its inline KV deletes finish. On restart, without any new request for that user, its
 * alarm must resume the deletes: every session refused and every `sess:` record gone, in both
 * consistency modes. Before the fix the alarm still pointed at the earliest session expiry
 * (7 days out), so nothing resumed them.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { type RevocationMode, SessionManager } from "gatehouse/auth";
import { describe, expect, it } from "vitest";
import { CONTINUATION_GUARD_MS, type UserSessions } from "../../durable-objects/user-sessions";
import { identity } from "../sessions/helpers";

const SESSIONS = 1_000;

function manager(revocation: RevocationMode): SessionManager {
  return new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS, revocation });
}

async function signIn(sessions: SessionManager, userId: string, count: number): Promise<string[]> {
  const cookies: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, async () => {
        const { response } = await sessions.createSession(identity(userId), "org_acme");
        return response.headers.get("Set-Cookie")!.split(";")[0]!;
      }),
    );
    cookies.push(...batch);
  }
  return cookies;
}

async function kvRecords(userId: string): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await env.SESSIONS.list<{ userId: string }>({ prefix: "sess:", ...(cursor ? { cursor } : {}) });
    n += page.keys.filter((k) => k.metadata?.userId === userId).length;
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  return n;
}

async function refused(sessions: SessionManager, cookies: string[]): Promise<number> {
  let n = 0;
  for (const cookie of cookies) {
    const user = await sessions.resolveUser(new Request("https://auth.example.com/", { headers: { Cookie: cookie } }));
    if (user === null) n++;
  }
  return n;
}

describe("finding 9: a crash right after a revocation commits", () => {
  it.each(["strict", "eventual"] as const)(
    "%s mode: the restarted object resumes the deletes by itself",
    async (mode) => {
      const userId = `user_crash_${mode}_${Date.now().toString(36)}`;
      const sessions = manager(mode);
      const cookies = await signIn(sessions, userId, SESSIONS);
      expect(await kvRecords(userId)).toBe(SESSIONS);
      const object = () => env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId));
      const stub = object();

      // Revoke everything, let the revocation commit, and kill the object before its first
      // batch of KV deletes can finish (the deletes are still in flight when it dies).
      const crashedAt = Date.now();
      await runInDurableObject(stub, async (instance: UserSessions, state) => {
        const revoking = instance.revokeAll("revoked_all");
        revoking.catch(() => {});
        await state.storage.sync();
        try {
          state.abort("crash");
        } catch {
          // abort() throws into the caller as well: that is the crash.
        }
      }).catch(() => {});

      // Restarted (a fresh instance, reached through a new stub): the revocation is durable and the alarm is close.
      const restarted = object();
      const after = await runInDurableObject(restarted, async (instance: UserSessions, state) => ({
        stats: instance.stats(),
        alarm: await state.storage.getAlarm(),
      }));
      expect(after.stats.sessions).toBe(0);
      expect(after.stats.tombstones).toBe(SESSIONS);
      // The crash did interrupt the deletes: most records were still to delete.
      expect(after.stats.pendingKvDeletes).toBeGreaterThan(SESSIONS / 2);
      expect(after.alarm).not.toBeNull();
      expect(after.alarm!).toBeLessThanOrEqual(crashedAt + CONTINUATION_GUARD_MS + 1_000);

      // No request for this user: only the object's own alarms run, until it has nothing left.
      for (let i = 0; i < 100; i++) {
        const { pendingKvDeletes } = await runInDurableObject(restarted, (instance: UserSessions) => instance.stats());
        if (pendingKvDeletes === 0) break;
        expect(await runDurableObjectAlarm(restarted)).toBe(true);
      }
      expect(await kvRecords(userId)).toBe(0);
      expect(await refused(sessions, cookies.slice(0, 100))).toBe(100);
    },
    120_000,
  );
});
