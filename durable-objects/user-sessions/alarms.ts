/**
 * @module
 * The session object's one alarm: when it should fire (now while KV deletes are pending, 5 s later
 * after a failed drain; else at the next due rewrite or security-event delivery, or the earliest
 * expiry of sessions, tombstones, provider-event state, timeline events and receipts), and what it
 * runs, feature by feature. A job about to run inline sets it as a continuation: at most
 * `CONTINUATION_GUARD_MS` away, never sooner. A failed alarm write is logged, never thrown.
 */
import type { SessionObject } from "./context";
import type { Lifecycle } from "./lifecycle";
import { pendingKvDeletes } from "./lifecycle/revocation";
import { closeEnded } from "./live";
import type { OrganizationControls } from "./organization-controls";
import type { SecurityRecord } from "./security-record";

const RETRY_DELAY_MS = 5_000;
/** Tables whose rows the alarm purges at `expires_at`. */
const EXPIRING_TABLES = [
  "sessions",
  "tombstones",
  "processed_events",
  "provider_memberships",
  "timeline",
  "receipts",
] as const;
/**
 * A multi-step job (KV deletes of a revocation, KV rewrites of a provider event) sets the alarm
 * this far ahead in the same storage commit as the job's rows, before its first await: if the
 * object dies before it finishes, the alarm resumes the job on restart. The inline run finishes
 * well within it and moves the alarm to the next real deadline.
 */
export const CONTINUATION_GUARD_MS = 5_000;

export interface AlarmInput {
  now: number;
  /** When the next queued rewrite is due, or null. */
  nextRewrite: number | null;
  /** When the next security-event delivery is due, or null. */
  nextDelivery: number | null;
  /** The last KV drain had failures: back off. */
  drainFailed: boolean;
  /** Called before a job's inline run (see `CONTINUATION_GUARD_MS`). */
  continuation: boolean;
}

/** The alarm time, or null when nothing is left to do. */
export function nextAlarm(sql: SqlStorage, input: AlarmInput): number | null {
  const { now, continuation } = input;
  if (pendingKvDeletes(sql) > 0) {
    return continuation ? now + CONTINUATION_GUARD_MS : now + (input.drainFailed ? RETRY_DELAY_MS : 0);
  }
  // One query per table: workerd's SQLite caps compound SELECTs at a few terms.
  const expiries = EXPIRING_TABLES.map(
    (table) => sql.exec<{ t: number | null }>(`SELECT MIN(expires_at) AS t FROM ${table}`).one().t,
  );
  const candidates = [...expiries, input.nextRewrite, input.nextDelivery]
    .filter((t): t is number => t !== null)
    .map(Number);
  if (candidates.length === 0) return null;
  const at = Math.min(...candidates);
  return continuation ? Math.max(at, now + CONTINUATION_GUARD_MS) : at;
}

/** Sets the alarm `nextAlarm` computes, or deletes it. Never awaited: the write joins the caller's storage commit. */
export function scheduleAlarm(storage: DurableObjectStorage, input: AlarmInput): void {
  const at = nextAlarm(storage.sql, input);
  if (at === null) storage.deleteAlarm().catch(alarmFailed);
  else storage.setAlarm(at).catch(alarmFailed);
}

/** The features one alarm invocation works on. */
export interface AlarmFeatures {
  object: SessionObject;
  lifecycle: Lifecycle;
  organizations: OrganizationControls;
  record: SecurityRecord;
}

/**
 * One alarm invocation. First no socket outlives its session (`sockets`: every one the runtime
 * holds for the object), and the apps hear of ended sessions; then a revocation's KV marks, and while those are unfinished nothing else
 * (the alarm re-arms at once, without an idle gap); then the rewrites within the KV budget the
 * marks left, the expired rows, and the record's housekeeping.
 */
export async function runAlarm(
  now: number,
  sockets: readonly WebSocket[],
  { object, lifecycle, organizations, record }: AlarmFeatures,
): Promise<void> {
  closeEnded(sockets, object.joined(), (sessionId) => object.own.isActive(sessionId, now));
  // The apps' notices before any KV work: KV trouble never holds a revocation notice back.
  await record.deliverApps(now);
  const deletes = lifecycle.pendingKvDeletes();
  if ((await lifecycle.drain()) > 0) {
    object.scheduleAlarm();
    return;
  }
  // One invocation's KV budget is shared: the rewrites get what the deletes left.
  await organizations.drainRewrites(Math.min(deletes, lifecycle.batch));
  lifecycle.purge(now);
  organizations.purge(now);
  await record.housekeep(now);
  object.scheduleAlarm();
}

/** A failed alarm write is logged; the next write to the object schedules again. */
function alarmFailed(err: unknown): void {
  console.error("gatehouse: could not schedule the session object's alarm", err instanceof Error ? err.message : err);
}
