/**
 * @module
 * Revocation receipts of the user's object: what a revocation did (sessions, sockets, KV records
 * deleted and pending, how long until strict mode refused them), kept for the retention period so
 * an operator can fetch one later by id. The id names its object: `rcpt.u.<userId>.<n>`. The KV
 * counts are read when the receipt is, so a later fetch shows the alarm's progress.
 */
import type { RevocationActor, RevocationReceipt } from "../../../client-sdk/protocol/security-record";

const PREFIX = "rcpt.u.";

export function receiptId(userId: string, n: number): string {
  return `${PREFIX}${userId}.${n}`;
}

/** The user id a receipt id names, or null when it is not a user receipt. */
export function receiptOwner(id: string): string | null {
  if (!id.startsWith(PREFIX)) return null;
  const rest = id.slice(PREFIX.length);
  const dot = rest.lastIndexOf(".");
  return dot > 0 && /^\d+$/.test(rest.slice(dot + 1)) ? rest.slice(0, dot) : null;
}

export interface NewReceipt {
  at: number;
  actor: RevocationActor;
  sessionIds: readonly string[];
  revoked: number;
  socketsClosed: number;
  refusedAfterMs: number;
}

/** Stores a receipt; returns its id (numbered per object, never reused: AUTOINCREMENT). */
export function storeReceipt(sql: SqlStorage, userId: string, receipt: NewReceipt, retentionMs: number): string {
  const { seq } = sql
    .exec<{ seq: number }>(
      `INSERT INTO receipts (at, actor, session_ids, revoked, sockets_closed, refused_after_ms, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
      receipt.at,
      JSON.stringify(receipt.actor),
      JSON.stringify(receipt.sessionIds),
      receipt.revoked,
      receipt.socketsClosed,
      receipt.refusedAfterMs,
      receipt.at + retentionMs,
    )
    .one();
  return receiptId(userId, Number(seq));
}

/** The receipt, with its KV counts as they are now; null when unknown or pruned. */
export function readReceipt(sql: SqlStorage, id: string, now: number): RevocationReceipt | null {
  const seq = Number(id.slice(id.lastIndexOf(".") + 1));
  const row = sql.exec("SELECT * FROM receipts WHERE seq = ? AND expires_at > ?", seq, now).toArray()[0];
  if (!row) return null;
  const ids = JSON.parse(String(row.session_ids)) as string[];
  let pending = 0;
  for (const sessionId of ids) {
    if (sql.exec("SELECT 1 FROM kv_deletes WHERE id = ?", sessionId).toArray().length > 0) pending++;
  }
  return {
    ...receiptFields(id, row),
    kvDeleted: ids.length - pending,
    kvPending: pending,
    refusedAfterMs: Number(row.refused_after_ms),
  };
}

/** The session ids a receipt names (`receiptId` as an event's `detail` holds it), or null when unknown or pruned. */
export function receiptSessionIds(sql: SqlStorage, receiptId: unknown): string[] | null {
  if (typeof receiptId !== "string") return null;
  const seq = Number(receiptId.slice(receiptId.lastIndexOf(".") + 1));
  const row = sql.exec<{ session_ids: string }>("SELECT session_ids FROM receipts WHERE seq = ?", seq).toArray()[0];
  return row ? (JSON.parse(String(row.session_ids)) as string[]) : null;
}

/** The latest receipts of this object (newest first), with their KV counts as they are now. */
export function listReceipts(sql: SqlStorage, userId: string, now: number, limit: number): RevocationReceipt[] {
  return sql
    .exec<{ seq: number }>("SELECT seq FROM receipts WHERE expires_at > ? ORDER BY seq DESC LIMIT ?", now, limit)
    .toArray()
    .map((r) => readReceipt(sql, receiptId(userId, Number(r.seq)), now))
    .filter((r): r is RevocationReceipt => r !== null);
}

export function pruneReceipts(sql: SqlStorage, now: number): void {
  sql.exec("DELETE FROM receipts WHERE expires_at <= ?", now);
}

/** What every receipt row holds, user's or organization's: when, who, and how many sessions and sockets. */
export function receiptFields(
  id: string,
  row: Record<string, SqlStorageValue>,
): Pick<RevocationReceipt, "id" | "at" | "actor" | "revoked" | "socketsClosed"> {
  return {
    id,
    at: Number(row.at),
    actor: JSON.parse(String(row.actor)) as RevocationActor,
    revoked: Number(row.revoked),
    socketsClosed: Number(row.sockets_closed),
  };
}
