/**
 * @module
 * SQLite schema of the shared-signals streams object (`SsfStreams`, one per deployment): the one
 * place its tables are declared. Written down in STORAGE.md; objects keep their storage forever,
 * so a change here that renames or drops a column must migrate.
 *
 * - `streams`: one row per SSF stream (SSF 1.0 §8.1.1), owned by the receiver that created it.
 *   `authorization_header` is the receiver's secret for its own endpoint: sent with each push,
 *   never shown back.
 * - `stream_subjects`: subjects a receiver removed (`default_subjects` is ALL), keyed by canonical JSON.
 * - `stream_outbox`: signed SETs still to push, in order (`id`); `jti` unique per stream, so a
 *   hand-off repeated by a user's object queues nothing twice and a retry resends the same bytes.
 * - `stream_deliveries`: the latest push attempts (the delivery log, newest kept).
 */
export const SSF_STREAMS_SCHEMA = `
CREATE TABLE IF NOT EXISTS streams (
  stream_id TEXT PRIMARY KEY,
  receiver TEXT NOT NULL,
  iss TEXT NOT NULL,
  aud TEXT NOT NULL,
  endpoint_url TEXT NOT NULL,
  authorization_header TEXT,
  events_requested TEXT NOT NULL,
  description TEXT,
  status TEXT NOT NULL,
  reason TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  verification_at INTEGER
);
CREATE INDEX IF NOT EXISTS streams_receiver ON streams (receiver);
CREATE TABLE IF NOT EXISTS stream_subjects (
  stream_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  PRIMARY KEY (stream_id, subject)
);
CREATE TABLE IF NOT EXISTS stream_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id TEXT NOT NULL,
  jti TEXT NOT NULL,
  event_type TEXT NOT NULL,
  set_jws TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL,
  UNIQUE (stream_id, jti)
);
CREATE TABLE IF NOT EXISTS stream_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id TEXT NOT NULL,
  jti TEXT NOT NULL,
  event_type TEXT NOT NULL,
  at INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  status INTEGER,
  err TEXT
);
`;
