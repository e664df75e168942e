// The membership rewrite queue over more sessions than one bulk read holds (100): one pool of
// writes over the whole drain, each write waiting only for its own hundred's read. A bulk read
// that fails leaves exactly its sessions queued for a retry (attempts counted, later not_before),
// and every other session is rewritten in the same drain.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RewriteQueue } from "../../durable-objects/user-sessions/organization-controls/rewrites";
import { ACME, freshUser, newSession, storedMemberships, stubOf } from "./helpers";

const SESSIONS = 150;

/** The real KV binding, except that its `failing`-th bulk read (1-based) rejects, as an outage would. */
function kvFailingRead(failing: number): { kv: KVNamespace; reads: () => number } {
  let reads = 0;
  const kv = new Proxy(env.SESSIONS, {
    get(target, property) {
      if (property === "get") {
        return (keys: string | string[], type: "json") => {
          reads++;
          if (Array.isArray(keys) && reads === failing) return Promise.reject(new Error("KV unavailable"));
          return target.get(keys as string[], type);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv, reads: () => reads };
}

describe("RewriteQueue over several bulk reads", () => {
  it("a failed bulk read leaves its hundred queued for a retry; the rest are rewritten in the same drain", async () => {
    const user = freshUser();
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i += 25) {
      const made = await Promise.all(Array.from({ length: 25 }, () => newSession(user)));
      ids.push(...made.map((s) => s.sessionId));
    }
    const { kv, reads } = kvFailingRead(2);
    const notified: string[] = [];
    const gaveUp: string[] = [];

    const outcome = await runInDurableObject(stubOf(user), async (_instance, state) => {
      const sql = state.storage.sql;
      const now = Date.now();
      sql.exec(
        "INSERT OR REPLACE INTO provider_memberships (organization_id, organization_slug, role, event_at, applied_at, expires_at) VALUES (?, 'acme', 'member', ?, ?, ?)",
        ACME,
        now,
        now,
        now + 86_400_000,
      );
      const queue = new RewriteQueue({
        sql,
        kv,
        notify: (sessionId) => notified.push(sessionId),
        giveUp: async (sessionIds) => gaveUp.push(...sessionIds),
        redelete: () => {},
      });
      expect(queue.enqueueLive(ACME, now)).toBe(SESSIONS);
      const result = await queue.drain(400);
      const left = sql
        .exec<{ session_id: string; attempts: number; not_before: number }>(
          "SELECT session_id, attempts, not_before FROM kv_rewrites",
        )
        .toArray();
      return { result, left, now };
    });

    expect(reads()).toBe(2);
    expect(outcome.result).toEqual({ rewritten: 100, failed: true });
    expect(outcome.left).toHaveLength(SESSIONS - 100);
    for (const job of outcome.left) {
      expect(job.attempts).toBe(1);
      expect(job.not_before).toBeGreaterThan(outcome.now);
    }
    expect(gaveUp).toEqual([]);
    const queued = new Set(outcome.left.map((j) => j.session_id));
    expect(new Set(notified)).toEqual(new Set(ids.filter((id) => !queued.has(id))));
    for (const id of ids) {
      expect((await storedMemberships(id))?.[0]?.role).toBe(queued.has(id) ? "admin" : "member");
    }
  }, 60_000);
});
