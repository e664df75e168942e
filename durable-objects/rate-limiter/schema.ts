/**
 * @module
 * The SQLite layout of one `RateLimiterDO`: one row per (key, window length,
 * limit), so every key sent to an object has its own counter and two policies
 * on one key never share one. `DORateLimiter` names one object per key, so an
 * object normally holds one key; a direct `POST /check` may send several.
 * The table replaced `rate_windows` (no key column): setting up drops that one
 * (at most one window of counts is forgotten, once, on upgrade).
 *
 * `rate_leases` records each lease of a hot key's budget (issue 29): what it
 * granted and, once given back, what was credited (NULL until then), so a
 * return is credited once per lease however often it is retried. A lease's
 * grant is already in its window's `count`; the rows of finished windows go
 * with the alarm. A new table, created if missing: no migration, nothing forgotten.
 */

export const CREATE_RATE_COUNTS = `CREATE TABLE IF NOT EXISTS rate_counts (
  key TEXT NOT NULL,
  window_ms INTEGER NOT NULL,
  quota INTEGER NOT NULL,
  start_ms INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (key, window_ms, quota)
) WITHOUT ROWID`;

/** The layout before per-key counting; dropped on set-up. */
export const DROP_LEGACY = "DROP TABLE IF EXISTS rate_windows";

export const SELECT_WINDOW = "SELECT start_ms, count FROM rate_counts WHERE key = ? AND window_ms = ? AND quota = ?";

export const UPSERT_WINDOW = `INSERT INTO rate_counts (key, window_ms, quota, start_ms, count) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (key, window_ms, quota) DO UPDATE SET start_ms = excluded.start_ms, count = excluded.count`;

export const DELETE_FINISHED = "DELETE FROM rate_counts WHERE start_ms + window_ms <= ?";

export const NEXT_RESET = "SELECT MIN(start_ms + window_ms) AS next FROM rate_counts";

export type WindowRow = { start_ms: number; count: number };

export const CREATE_RATE_LEASES = `CREATE TABLE IF NOT EXISTS rate_leases (
  key TEXT NOT NULL,
  window_ms INTEGER NOT NULL,
  quota INTEGER NOT NULL,
  lease_id TEXT NOT NULL,
  start_ms INTEGER NOT NULL,
  granted INTEGER NOT NULL,
  returned INTEGER,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (key, window_ms, quota, lease_id)
) WITHOUT ROWID`;

export const INSERT_LEASE = `INSERT INTO rate_leases (key, window_ms, quota, lease_id, start_ms, granted, returned, expires_at)
  VALUES (?, ?, ?, ?, ?, ?, NULL, ?)`;

export const SELECT_LEASE = `SELECT start_ms, granted, returned FROM rate_leases
  WHERE key = ? AND window_ms = ? AND quota = ? AND lease_id = ?`;

export const MARK_RETURNED = `UPDATE rate_leases SET returned = ?
  WHERE key = ? AND window_ms = ? AND quota = ? AND lease_id = ?`;

export const DELETE_FINISHED_LEASES = "DELETE FROM rate_leases WHERE start_ms + window_ms <= ?";

export type LeaseRow = { start_ms: number; granted: number; returned: number | null };
