/**
 * @module
 * The kill switch's fan-out as a durable queue: one `fanout` row per member still to tell, written
 * in the same synchronous block as the receipt (and the alarm that resumes it after a crash), then
 * drained at most `perRun` members per invocation (a Worker invocation may make a bounded number of
 * subrequests: 10,000 on Workers Paid, 50 on Free), `concurrency` at a time. Each result is added to
 * its receipt; a member whose object failed is retried by the alarm, then counted as failed (the
 * published epoch still refuses their sessions). Storage and calls only; the kill switch
 * (organization-controls.ts) decides when.
 */
import { inPool } from "../../client-sdk/core/pool";
import type { RevocationResult } from "../../client-sdk/protocol/lifecycle";
import type { RevocationActor } from "../../client-sdk/protocol/security-record";

/** Attempts per member before it counts as failed. */
export const FAN_OUT_ATTEMPTS = 3;
/** After a failed attempt, the alarm retries this much later. */
export const FAN_OUT_RETRY_MS = 1_000;

/** What telling one member's object does (`UserSessions.endForOrganization`). */
export type EndMember = (userId: string, epoch: number, actor: RevocationActor) => Promise<RevocationResult>;

/** Queues every indexed member for the receipt `seq` (a later switch takes over a member still queued). */
export function queueMembers(sql: SqlStorage, seq: number, epoch: number, actor: RevocationActor): number {
  // Members an earlier switch still had queued move to this one: that receipt stops waiting for them.
  sql.exec(
    `UPDATE receipts SET pending_members = pending_members -
       (SELECT COUNT(*) FROM fanout f JOIN members m ON m.user_id = f.user_id WHERE f.receipt_seq = receipts.seq)
     WHERE seq IN (SELECT DISTINCT receipt_seq FROM fanout)`,
  );
  sql.exec(
    `INSERT INTO fanout (user_id, receipt_seq, epoch, actor, attempts, not_before)
     SELECT user_id, ?, ?, ?, 0, 0 FROM members WHERE true
     ON CONFLICT (user_id) DO UPDATE SET receipt_seq = excluded.receipt_seq, epoch = excluded.epoch,
       actor = excluded.actor, attempts = 0, not_before = 0`,
    seq,
    epoch,
    JSON.stringify(actor),
  );
  // Counted, not `rowsWritten`: an upsert's writes include its index updates.
  return Number(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM fanout WHERE receipt_seq = ?", seq).one().n);
}

export function pendingMembers(sql: SqlStorage): number {
  return Number(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM fanout").one().n);
}

/** When the next queued member may be told, or null when none is queued. */
export function nextFanOut(sql: SqlStorage): number | null {
  const t = sql.exec<{ t: number | null }>("SELECT MIN(not_before) AS t FROM fanout").one().t;
  return t === null ? null : Number(t);
}

type Queued = {
  user_id: string;
  receipt_seq: number;
  epoch: number;
  actor: string;
  attempts: number;
};

/**
 * Tells up to `perRun` queued members that are due at `now`, `concurrency` at a time, and books
 * each outcome on its receipt. A row is settled only if it still belongs to the same receipt
 * (a newer switch may have taken the member over meanwhile). Completed receipts get their
 * `refused_after_ms` at `clock()`. Returns how many members were told.
 */
export async function drainFanOut(
  sql: SqlStorage,
  endMember: EndMember,
  options: { now: number; perRun: number; concurrency: number; clock: () => number },
): Promise<number> {
  const batch = sql
    .exec<Queued>(
      "SELECT user_id, receipt_seq, epoch, actor, attempts FROM fanout WHERE not_before <= ? ORDER BY user_id LIMIT ?",
      options.now,
      options.perRun,
    )
    .toArray();
  const outcomes = await inPool(batch, options.concurrency, async (row) => {
    try {
      const result = await endMember(row.user_id, Number(row.epoch), JSON.parse(row.actor) as RevocationActor);
      settle(sql, row, { revoked: result.revoked, sockets: result.socketsClosed, kv: result.pendingKvDeletes });
    } catch (err) {
      console.error(
        "gatehouse: kill switch could not reach a member's session object",
        err instanceof Error ? err.message : err,
      );
      if (Number(row.attempts) + 1 >= FAN_OUT_ATTEMPTS) settle(sql, row, null);
      else {
        sql.exec(
          "UPDATE fanout SET attempts = attempts + 1, not_before = ? WHERE user_id = ? AND receipt_seq = ?",
          options.clock() + FAN_OUT_RETRY_MS,
          row.user_id,
          row.receipt_seq,
        );
      }
    }
  });
  // A member's failure is booked above; what fails the booking itself still fails the run.
  const broken = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
  if (broken) throw broken.reason;
  // Receipts whose last member was settled: the time from the call until every session was refused.
  sql.exec(
    `UPDATE receipts SET refused_after_ms = MAX(0, ? - at)
     WHERE refused_after_ms IS NULL AND pending_members = 0`,
    options.clock(),
  );
  return batch.length;
}

/** Removes the member's row and books the outcome (null: failed) on its receipt, once. */
function settle(sql: SqlStorage, row: Queued, outcome: { revoked: number; sockets: number; kv: number } | null): void {
  const removed = sql.exec(
    "DELETE FROM fanout WHERE user_id = ? AND receipt_seq = ? RETURNING user_id",
    row.user_id,
    row.receipt_seq,
  );
  if (removed.toArray().length === 0) return;
  sql.exec(
    `UPDATE receipts SET revoked = revoked + ?, sockets_closed = sockets_closed + ?, kv_pending = kv_pending + ?,
       failed_members = failed_members + ?, pending_members = pending_members - 1
     WHERE seq = ?`,
    outcome?.revoked ?? 0,
    outcome?.sockets ?? 0,
    outcome?.kv ?? 0,
    outcome ? 0 : 1,
    row.receipt_seq,
  );
}
