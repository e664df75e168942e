/**
 * @module
 * The storage side of a revocation: one synchronous transaction moves the sessions to tombstones
 * and queues their KV records' replacement by a revoked mark (from that instant strict mode refuses
 * them), then the writes drain in batches, `KV_PARALLELISM` in flight at a time. Pure storage work
 * over SQLite and KV; telling the tabs, the record and the alarm stay with lifecycle (index.ts).
 */
import { inPool } from "../../../client-sdk/core/pool";
import { REVOKED_MARK_TTL_SECONDS, revokedMark, SESSION_PREFIX } from "../../../client-sdk/protocol/session-record";
import { unbindSessions } from "../device-binding";
import type { RevocationReason } from "../schema";

/** KV writes in flight at once while draining (bench/sessions measures the drain against this floor). */
export const KV_PARALLELISM = 25;
/** Marks written per invocation by default: within KV's 1,000 operations, with room for the rewrites. */
export const DEFAULT_REVOCATION_BATCH = 500;

/** Moves `ids` to tombstones and queues their KV deletes, atomically; returns how many were live rows. */
export function commitRevocation(
  storage: DurableObjectStorage,
  ids: readonly string[],
  reason: RevocationReason,
  now: number,
): number {
  const sql = storage.sql;
  let revoked = 0;
  storage.transactionSync(() => {
    for (const id of ids) {
      const row = sql
        .exec<{ absolute_expires_at: number }>("SELECT absolute_expires_at FROM sessions WHERE id = ?", id)
        .toArray()[0];
      const expiresAt = row ? row.absolute_expires_at : now + 24 * 3600 * 1000;
      sql.exec("DELETE FROM sessions WHERE id = ?", id);
      sql.exec(
        "INSERT OR REPLACE INTO tombstones (id, revoked_at, expires_at, reason) VALUES (?, ?, ?, ?)",
        id,
        now,
        expiresAt,
        reason,
      );
      sql.exec("INSERT OR IGNORE INTO kv_deletes (id) VALUES (?)", id);
      if (row) revoked++;
    }
    unbindSessions(sql, ids);
  });
  return revoked;
}

export function pendingKvDeletes(sql: SqlStorage): number {
  return Number(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM kv_deletes").one().n);
}

/**
 * Replaces up to `batch` pending KV records with the revoked mark (whose session it was, for a day:
 * a later use is refused and attributed); returns how many are still pending and whether any failed.
 * One KV write per session, as a delete was.
 */
export async function drainKvDeletes(
  sql: SqlStorage,
  kv: KVNamespace,
  batch: number,
  userId: string,
  now: number,
): Promise<{ pending: number; failed: boolean }> {
  const ids = sql
    .exec<{ id: string }>("SELECT id FROM kv_deletes LIMIT ?", batch)
    .toArray()
    .map((r) => r.id);
  const results = await inPool(ids, KV_PARALLELISM, (id) => writeRevokedMark(kv, id, userId, now));
  const written = ids.filter((_, i) => results[i]!.status === "fulfilled");
  // One statement for the batch (one storage commit, not one per write); a crash before it only
  // means the same marks are written again.
  sql.exec("DELETE FROM kv_deletes WHERE id IN (SELECT value FROM json_each(?))", JSON.stringify(written));
  const failures = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failures.length > 0) {
    console.error(`gatehouse: ${failures.length} KV writes of revoked marks failed; will retry`, failures[0]!.reason);
  }
  return { pending: pendingKvDeletes(sql), failed: failures.length > 0 };
}

/** One KV write: the session's record becomes its revoked mark (whose it was, for a day). */
export function writeRevokedMark(kv: KVNamespace, sessionId: string, userId: string, now: number): Promise<void> {
  return kv.put(`${SESSION_PREFIX}${sessionId}`, revokedMark(userId, now), {
    expirationTtl: REVOKED_MARK_TTL_SECONDS,
    metadata: { userId, revoked: true },
  });
}
