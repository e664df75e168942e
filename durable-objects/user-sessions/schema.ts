/**
 * @module
 * SQLite schema of the per-user session object. Written down in
 * ARCHITECTURE.md ("UserSessions tables"); a change here that renames or
 * drops a column must migrate, because objects keep their storage forever.
 */

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  absolute_expires_at INTEGER NOT NULL,
  organization_id TEXT,
  user_agent TEXT,
  ip TEXT,
  provider_session_id TEXT
);
CREATE INDEX IF NOT EXISTS sessions_provider ON sessions (provider_session_id);
CREATE TABLE IF NOT EXISTS tombstones (
  id TEXT PRIMARY KEY,
  revoked_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS kv_deletes (
  id TEXT PRIMARY KEY
);
`;

/** One row of `sessions`, as the RPC methods return it. */
export interface SessionInfo {
  /** Public session id (SHA-256 hex of the cookie token). */
  id: string;
  createdAt: number;
  lastSeenAt: number;
  /** When the session ends if unused (the earlier of idle and absolute expiry), ms. */
  expiresAt: number;
  absoluteExpiresAt: number;
  organizationId: string | null;
  userAgent: string | null;
  ip: string | null;
  providerSessionId: string | null;
}

/** What `SessionManager` mirrors into the object when a session is created. */
export interface SessionMirror {
  id: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  absoluteExpiresAt: number;
  organizationId?: string;
  userAgent?: string;
  ip?: string;
  providerSessionId?: string;
}

export type RevocationReason =
  | "revoked"
  | "logout"
  | "revoked_all"
  | "signed_out_elsewhere"
  | "provider"
  | "user_deleted";

export interface RevocationResult {
  /** Sessions revoked by this call. */
  revoked: number;
  /** Open sockets told and closed. */
  socketsClosed: number;
  /** KV records still to delete in later invocations (alarm). */
  pendingKvDeletes: number;
}
