/**
 * @module
 * The SQLite layout of one `RateLimiterDO` (one object per limited key):
 * one row per (window length, limit) the key is checked under, so two
 * policies on one key never share a counter. Changing it needs a new migration tag.
 */

export const CREATE_RATE_WINDOWS = `CREATE TABLE IF NOT EXISTS rate_windows (
  window_ms INTEGER NOT NULL,
  quota INTEGER NOT NULL,
  start_ms INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (window_ms, quota)
) WITHOUT ROWID`;

export const SELECT_WINDOW = "SELECT start_ms, count FROM rate_windows WHERE window_ms = ? AND quota = ?";

export const UPSERT_WINDOW = `INSERT INTO rate_windows (window_ms, quota, start_ms, count) VALUES (?, ?, ?, ?)
  ON CONFLICT (window_ms, quota) DO UPDATE SET start_ms = excluded.start_ms, count = excluded.count`;

export const DELETE_FINISHED = "DELETE FROM rate_windows WHERE start_ms + window_ms <= ?";

export const NEXT_RESET = "SELECT MIN(start_ms + window_ms) AS next FROM rate_windows";

export type WindowRow = { start_ms: number; count: number };
