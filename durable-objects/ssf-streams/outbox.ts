/**
 * @module
 * Push delivery of a stream's SETs (RFC 8935) with retries and a delivery log. Each SET is signed
 * once when queued and the same bytes are sent on every attempt (same `jti`: a receiver drops a
 * repeat, RFC 8417 §2.2). One POST per SET, `Content-Type: application/secevent+jwt` and `Accept:
 * application/json` (§2.1), the receiver's `authorization_header` when it gave one (SSF 1.0 §5.1.1).
 * 2xx (§2.2: 202) delivers; a 400 with an RFC 8935 §2.4 `err` is final (`refused`), except
 * `invalid_key`, which a receiver answers while it still has our previous keys cached (retried);
 * anything else (another status, no answer, a redirect, which is never followed, the deadline) is
 * retried per `STREAM_RETRY_DELAYS_MS`, then dropped. The deadline covers the answer's body too,
 * and a 400's body is read at most `MAX_ERROR_BODY` bytes (past it: no `err`). A stream's SETs go in order: a failure stops its run, so
 * a later SET never overtakes an earlier one about the same subject (SSF 1.0 §8.1.2). The log never
 * holds a SET, a subject or a receiver's answer body beyond its `err` code.
 */
import { readBoundedText } from "../../client-sdk/core/body";
import { withAbortDeadline } from "../../client-sdk/core/deadline";
import {
  PUSH_ERROR_CODES,
  type StreamDeliveryAttempt,
  type StreamDeliveryOutcome,
} from "../../client-sdk/protocol/shared-signals";

/** Waits after the 1st, 2nd, … failed attempt; past the last, the SET is dropped. */
export const STREAM_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000];
/** SETs one alarm sends at most per stream. */
export const PUSHES_PER_RUN = 50;
/** SETs a stream holds at most (paused, or a receiver down): past it the oldest go (SSF 1.0 §8.1.2: MAY drop). */
export const MAX_HELD = 10_000;
/** Attempts the delivery log keeps (all streams, newest kept). */
export const DELIVERY_LOG_SIZE = 500;
const PUSH_TIMEOUT_MS = 10_000;
const MAX_ERROR_BODY = 4_096;
const PUSH_ERRORS: ReadonlySet<string> = new Set(PUSH_ERROR_CODES);

/** Queues one signed SET on a stream (nothing when that `jti` is queued already); drops the oldest past `MAX_HELD`. */
export function enqueueSet(
  sql: SqlStorage,
  set: { streamId: string; jti: string; eventType: string; jws: string },
  now: number,
): void {
  sql.exec(
    "INSERT OR IGNORE INTO stream_outbox (stream_id, jti, event_type, set_jws, next_at) VALUES (?, ?, ?, ?, ?)",
    set.streamId,
    set.jti,
    set.eventType,
    set.jws,
    now,
  );
  const over = sql
    .exec<{ id: number; jti: string; event_type: string; attempts: number }>(
      "SELECT id, jti, event_type, attempts FROM stream_outbox WHERE stream_id = ? ORDER BY id DESC LIMIT -1 OFFSET ?",
      set.streamId,
      MAX_HELD,
    )
    .toArray();
  for (const row of over) {
    sql.exec("DELETE FROM stream_outbox WHERE id = ?", row.id);
    log(sql, {
      streamId: set.streamId,
      jti: row.jti,
      eventType: row.event_type,
      at: now,
      outcome: "dropped",
      attempt: Number(row.attempts),
      status: null,
      err: null,
    });
  }
}

/** The stream's endpoint and its receiver's header, as a push needs them. */
export interface PushTarget {
  streamId: string;
  endpointUrl: string;
  authorizationHeader: string | null;
}

export interface PushRun {
  delivered: number;
  failed: number;
  dropped: number;
  refused: number;
}

/** Sends the stream's SETs due at `now`, in order, stopping at the first that must wait (see module doc). */
export async function pushDue(
  sql: SqlStorage,
  target: PushTarget,
  now: number,
  run: PushRun,
  fetcher: typeof fetch = fetch,
): Promise<void> {
  const due = sql
    .exec<{ id: number; jti: string; event_type: string; set_jws: string; attempts: number; next_at: number }>(
      "SELECT id, jti, event_type, set_jws, attempts, next_at FROM stream_outbox WHERE stream_id = ? ORDER BY id LIMIT ?",
      target.streamId,
      PUSHES_PER_RUN,
    )
    .toArray();
  for (const row of due) {
    // The oldest waits for its retry: nothing behind it goes first.
    if (Number(row.next_at) > now) return;
    const answer = await push(target, row.set_jws, fetcher);
    const attempts = Number(row.attempts);
    const outcome: StreamDeliveryOutcome = answer.delivered
      ? "delivered"
      : answer.final
        ? "refused"
        : attempts >= STREAM_RETRY_DELAYS_MS.length
          ? "dropped"
          : "failed";
    log(sql, {
      streamId: target.streamId,
      jti: row.jti,
      eventType: row.event_type,
      at: now,
      outcome,
      attempt: attempts + 1,
      status: answer.status,
      err: answer.err,
    });
    run[outcome]++;
    if (outcome === "failed") {
      sql.exec(
        "UPDATE stream_outbox SET attempts = attempts + 1, next_at = ? WHERE id = ?",
        now + STREAM_RETRY_DELAYS_MS[attempts]!,
        row.id,
      );
      return;
    }
    sql.exec("DELETE FROM stream_outbox WHERE id = ?", row.id);
    if (outcome === "dropped" || outcome === "refused") {
      console.error(
        `gatehouse: ssf: stream ${target.streamId}: a SET was ${outcome} (${answer.err ?? answer.status ?? "no answer"})`,
      );
    }
  }
}

interface PushAnswer {
  delivered: boolean;
  /** A 400 the receiver will answer again: the SET is not retried. */
  final: boolean;
  status: number | null;
  err: string | null;
}

async function push(target: PushTarget, jws: string, fetcher: typeof fetch): Promise<PushAnswer> {
  try {
    // The deadline covers the answer's body too: an endpoint that trickles it cannot hold the alarm.
    return await withAbortDeadline(
      (signal) => send(target, jws, fetcher, signal),
      PUSH_TIMEOUT_MS,
      () => new Error("timed out"),
    );
  } catch (err) {
    // The error's name only: a message may carry the endpoint, and with it a token.
    console.error(
      `gatehouse: ssf: push to stream ${target.streamId} failed: ${err instanceof Error ? err.name : "error"}`,
    );
    return { delivered: false, final: false, status: null, err: null };
  }
}

async function send(target: PushTarget, jws: string, fetcher: typeof fetch, signal: AbortSignal): Promise<PushAnswer> {
  const response = await fetcher(target.endpointUrl, {
    method: "POST",
    redirect: "manual",
    signal,
    headers: {
      "Content-Type": "application/secevent+jwt",
      Accept: "application/json",
      "User-Agent": "gatehouse-workers shared signals",
      ...(target.authorizationHeader ? { Authorization: target.authorizationHeader } : {}),
    },
    body: jws,
  });
  if (response.status >= 200 && response.status < 300) {
    await response.body?.cancel();
    return { delivered: true, final: false, status: response.status, err: null };
  }
  if (response.status !== 400) {
    await response.body?.cancel();
    return { delivered: false, final: false, status: response.status, err: null };
  }
  const err = await pushErrorOf(response);
  return { delivered: false, final: err !== "invalid_key", status: 400, err };
}

/** The `err` of an RFC 8935 §2.3 error body (a known §2.4 code), or null; past `MAX_ERROR_BODY` bytes it stops reading. */
async function pushErrorOf(response: Response): Promise<string | null> {
  const text = await readBoundedText(response, MAX_ERROR_BODY);
  if (text === null) return null;
  try {
    const err = (JSON.parse(text) as { err?: unknown }).err;
    return typeof err === "string" && PUSH_ERRORS.has(err) ? err : null;
  } catch {
    return null;
  }
}

function log(sql: SqlStorage, attempt: StreamDeliveryAttempt): void {
  sql.exec(
    "INSERT INTO stream_deliveries (stream_id, jti, event_type, at, outcome, attempt, status, err) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    attempt.streamId,
    attempt.jti,
    attempt.eventType,
    attempt.at,
    attempt.outcome,
    attempt.attempt,
    attempt.status,
    attempt.err,
  );
  sql.exec(
    "DELETE FROM stream_deliveries WHERE id <= (SELECT id FROM stream_deliveries ORDER BY id DESC LIMIT 1 OFFSET ?)",
    DELIVERY_LOG_SIZE,
  );
}

/** The stream's latest attempts, newest first. */
export function recentDeliveries(sql: SqlStorage, streamId: string, limit: number): StreamDeliveryAttempt[] {
  return sql
    .exec<{
      stream_id: string;
      jti: string;
      event_type: string;
      at: number;
      outcome: string;
      attempt: number;
      status: number | null;
      err: string | null;
    }>(
      "SELECT stream_id, jti, event_type, at, outcome, attempt, status, err FROM stream_deliveries WHERE stream_id = ? ORDER BY id DESC LIMIT ?",
      streamId,
      limit,
    )
    .toArray()
    .map((r) => ({
      streamId: r.stream_id,
      jti: r.jti,
      eventType: r.event_type,
      at: Number(r.at),
      outcome: r.outcome as StreamDeliveryOutcome,
      attempt: Number(r.attempt),
      status: r.status === null ? null : Number(r.status),
      err: r.err,
    }));
}

/** SETs the stream still holds. */
export function pendingCount(sql: SqlStorage, streamId: string): number {
  return Number(
    sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM stream_outbox WHERE stream_id = ?", streamId).one().n,
  );
}
