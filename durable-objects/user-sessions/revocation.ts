/**
 * @module
 * The session mirror's storage side of a revocation: one synchronous
 * transaction moves the sessions to tombstones and queues their KV records'
 * replacement by a revoked mark (from that instant strict mode refuses them),
 * then the writes drain in batches, 25 at a time. Pure storage work over SQLite and KV; telling the
 * tabs and scheduling the alarm stay with the object.
 */
import { REVOKED_MARK_TTL_SECONDS, revokedMark, SESSION_PREFIX } from "../../client-sdk/protocol/session-record";
import type { RevocationReason, SessionInfo } from "./schema";

// Measured on local KV: 25 concurrent deletes is the fastest (bench/sessions, see ARCHITECTURE.md).
const KV_PARALLELISM = 25;

type Row = Record<string, SqlStorageValue>;

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
  let failed = false;
  for (let i = 0; i < ids.length; i += KV_PARALLELISM) {
    const chunk = ids.slice(i, i + KV_PARALLELISM);
    const mark = revokedMark(userId, now);
    const results = await Promise.allSettled(
      chunk.map((id) =>
        kv.put(`${SESSION_PREFIX}${id}`, mark, {
          expirationTtl: REVOKED_MARK_TTL_SECONDS,
          metadata: { userId, revoked: true },
        }),
      ),
    );
    results.forEach((r, j) => {
      if (r.status === "fulfilled") sql.exec("DELETE FROM kv_deletes WHERE id = ?", chunk[j]!);
      else {
        failed = true;
        console.error("gatehouse: KV write of a revoked mark failed; will retry", r.reason);
      }
    });
  }
  return { pending: pendingKvDeletes(sql), failed };
}

/** Ids of the mirrored sessions matching a fixed SQL condition (never built from input). */
export function sessionIds(sql: SqlStorage, where: string, ...bindings: SqlStorageValue[]): string[] {
  return sql
    .exec<{ id: string }>(`SELECT id FROM sessions WHERE ${where}`, ...bindings)
    .toArray()
    .map((r) => r.id);
}

export function toInfo(row: Row): SessionInfo {
  return {
    id: String(row.id),
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
    absoluteExpiresAt: Number(row.absolute_expires_at),
    organizationId: row.organization_id === null ? null : String(row.organization_id),
    userAgent: row.user_agent === null ? null : String(row.user_agent),
    ip: row.ip === null ? null : String(row.ip),
    providerSessionId: row.provider_session_id === null ? null : String(row.provider_session_id),
    device: row.device === null || row.device === undefined ? null : String(row.device),
    location: row.location === null || row.location === undefined ? null : JSON.parse(String(row.location)),
    newDevice: row.new_device === 1,
  };
}
