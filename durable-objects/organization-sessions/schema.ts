/**
 * @module
 * SQLite schema of the per-organization object (`OrganizationSessions`): the one place its tables
 * are declared (the keys of `settings` are in settings.ts). Written down in ARCHITECTURE.md
 * ("Storage schema"); objects keep their storage forever, so a change here that renames or drops a
 * column must migrate.
 */
export const ORGANIZATION_SCHEMA = `
CREATE TABLE IF NOT EXISTS members (
  user_id TEXT PRIMARY KEY,
  added_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS receipts (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  members INTEGER NOT NULL,
  revoked INTEGER NOT NULL,
  sockets_closed INTEGER NOT NULL,
  kv_pending INTEGER NOT NULL,
  refused_after_ms INTEGER,
  failed_members INTEGER NOT NULL,
  pending_members INTEGER NOT NULL DEFAULT 0,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS fanout (
  user_id TEXT PRIMARY KEY,
  receipt_seq INTEGER NOT NULL,
  epoch INTEGER NOT NULL,
  actor TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  not_before INTEGER NOT NULL DEFAULT 0
);
`;
