/**
 * @module
 * The user's security timeline in the session object's SQLite: append an event (once per
 * `dedupe` key, so a retried or concurrent call never records it twice), page it newest first by
 * cursor, and prune what is older than the retention period. Storage only; telling open tabs and
 * queueing deliveries stay with the security record (index.ts).
 */
import type {
  RevocationActor,
  SecurityEvent,
  SecurityEventType,
  SessionLocation,
  TimelinePage,
} from "../../../client-sdk/protocol/security-record";

/** Default retention of timeline events and known devices: 90 days. */
export const DEFAULT_RETENTION_MS = 90 * 24 * 3600 * 1000;
/** Largest page a caller may ask for. */
export const MAX_PAGE = 100;

export interface NewEvent {
  type: SecurityEventType;
  at: number;
  /** At most one event per key is ever kept (e.g. `signin:<sessionId>`); omit for none. */
  dedupe?: string;
  sessionId?: string | null;
  /** Every session the event is about (a revocation's ids, a refused session): stored as a JSON array. */
  sessionIds?: readonly string[];
  device?: string | null;
  ip?: string | null;
  location?: SessionLocation | null;
  actor?: RevocationActor | null;
  detail?: Record<string, string | number | boolean | null>;
}

type Row = Record<string, SqlStorageValue>;

/** Appends `event` unless its dedupe key was recorded already; returns the stored event, or null for a duplicate. */
export function appendEvent(
  sql: SqlStorage,
  userId: string,
  event: NewEvent,
  retentionMs: number,
): SecurityEvent | null {
  const id = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
  // RETURNING, not rowsWritten: an ignored insert into an AUTOINCREMENT table still counts a write
  // (sqlite_sequence), so only the returned row tells a stored event from a duplicate.
  const row = sql
    .exec(
      `INSERT OR IGNORE INTO timeline (id, dedupe, type, at, session_id, session_ids, device, ip, location, actor, detail, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      id,
      event.dedupe ?? null,
      event.type,
      event.at,
      event.sessionId ?? null,
      event.sessionIds ? JSON.stringify(event.sessionIds) : null,
      event.device ?? null,
      event.ip ?? null,
      event.location ? JSON.stringify(event.location) : null,
      event.actor ? JSON.stringify(event.actor) : null,
      JSON.stringify(event.detail ?? {}),
      event.at + retentionMs,
    )
    .toArray()[0];
  return row ? toEvent(row, userId) : null;
}

/** One page of events newest first, older than `cursor` (an opaque string from a previous page). */
export function pageTimeline(
  sql: SqlStorage,
  userId: string,
  options: { cursor?: string | null; limit?: number; now: number },
): TimelinePage {
  const limit = Math.min(Math.max(1, Math.trunc(options.limit ?? 50)), MAX_PAGE);
  const before = decodeCursor(options.cursor);
  const rows = sql
    .exec(
      "SELECT * FROM timeline WHERE seq < ? AND expires_at > ? ORDER BY seq DESC LIMIT ?",
      before,
      options.now,
      limit + 1,
    )
    .toArray();
  const page = rows.slice(0, limit).map((row) => toEvent(row, userId));
  const last = page.at(-1);
  return { events: page, nextCursor: rows.length > limit && last ? encodeCursor(last.seq) : null };
}

/** The stored event with this sequence number (for deliveries), or null once pruned. */
export function eventAt(sql: SqlStorage, userId: string, seq: number): SecurityEvent | null {
  const row = sql.exec("SELECT * FROM timeline WHERE seq = ?", seq).toArray()[0];
  return row ? toEvent(row, userId) : null;
}

export function pruneTimeline(sql: SqlStorage, now: number): void {
  sql.exec("DELETE FROM timeline WHERE expires_at <= ?", now);
}

/** Cursors are the sequence number in base 36, prefixed so a stray string is refused, not read as 0. */
function encodeCursor(seq: number): string {
  return `c${seq.toString(36)}`;
}

function decodeCursor(cursor: string | null | undefined): number {
  if (!cursor) return Number.MAX_SAFE_INTEGER;
  if (!/^c[0-9a-z]{1,11}$/.test(cursor)) throw new RangeError("cursor is not one this timeline issued");
  return Number.parseInt(cursor.slice(1), 36);
}

function toEvent(row: Row, userId: string): SecurityEvent {
  return {
    id: String(row.id),
    seq: Number(row.seq),
    userId,
    type: String(row.type) as SecurityEventType,
    at: Number(row.at),
    sessionId: row.session_id === null ? null : String(row.session_id),
    device: row.device === null ? null : String(row.device),
    ip: row.ip === null ? null : String(row.ip),
    location: row.location === null ? null : (JSON.parse(String(row.location)) as SessionLocation),
    actor: row.actor === null ? null : (JSON.parse(String(row.actor)) as RevocationActor),
    detail: JSON.parse(String(row.detail)) as SecurityEvent["detail"],
    // Absent (not null) when the row has none: events of other types keep their shape.
    ...(row.session_ids === null || row.session_ids === undefined
      ? {}
      : { sessionIds: JSON.parse(String(row.session_ids)) as string[] }),
  };
}
