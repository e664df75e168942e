/**
 * @module
 * SQLite schema of the per-user session object: the one place its tables are declared (every
 * feature's: lifecycle, policy, security record, organization controls, provider access, device
 * binding). Written down in ARCHITECTURE.md ("Storage schema"); a change here that renames or drops
 * a column must migrate, because objects keep their storage forever.
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
CREATE TABLE IF NOT EXISTS processed_events (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  processed_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS provider_memberships (
  organization_id TEXT PRIMARY KEY,
  organization_slug TEXT,
  role TEXT,
  event_at INTEGER NOT NULL,
  applied_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS kv_rewrites (
  session_id TEXT NOT NULL,
  organization_id TEXT NOT NULL,
  not_before INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (session_id, organization_id)
);
CREATE TABLE IF NOT EXISTS timeline (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  dedupe TEXT UNIQUE,
  type TEXT NOT NULL,
  at INTEGER NOT NULL,
  session_id TEXT,
  device TEXT,
  ip TEXT,
  location TEXT,
  actor TEXT,
  detail TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS timeline_expiry ON timeline (expires_at);
CREATE TABLE IF NOT EXISTS known_devices (
  key TEXT PRIMARY KEY,
  device TEXT NOT NULL,
  location TEXT,
  first_seen_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS receipts (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  session_ids TEXT NOT NULL,
  revoked INTEGER NOT NULL,
  sockets_closed INTEGER NOT NULL,
  refused_after_ms INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS organization_epochs (
  organization_id TEXT PRIMARY KEY,
  epoch INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS outbox (
  seq INTEGER NOT NULL,
  destination TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL,
  PRIMARY KEY (seq, destination)
);
CREATE TABLE IF NOT EXISTS deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  seq INTEGER NOT NULL,
  destination TEXT NOT NULL,
  at INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  attempt INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS live_tickets (
  hash TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS bound_keys (
  session_id TEXT PRIMARY KEY,
  jwk TEXT NOT NULL,
  alg TEXT NOT NULL,
  thumbprint TEXT NOT NULL,
  bound_at INTEGER NOT NULL,
  refreshed_at INTEGER
);
CREATE TABLE IF NOT EXISTS binding_challenges (
  hash TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  purpose TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS binding_challenges_session ON binding_challenges (session_id);
`;

/**
 * Columns added to tables of objects that already exist (storage outlives deploys): each is
 * added when missing, so an old object upgrades in place on its first request.
 */
const ADDED_COLUMNS: readonly [table: string, column: string, type: string][] = [
  ["sessions", "device", "TEXT"],
  ["sessions", "device_key", "TEXT"],
  ["sessions", "location", "TEXT"],
  ["sessions", "new_device", "INTEGER"],
  // The provider's tokens (provider-tokens.ts) and an impersonator (JSON), issue 18.
  ["sessions", "access_token", "TEXT"],
  ["sessions", "access_expires_at", "INTEGER"],
  ["sessions", "refresh_token", "TEXT"],
  ["sessions", "refresh_pending", "INTEGER"],
  ["sessions", "impersonator", "TEXT"],
  // The session policy of the sign-in (JSON), so later moments apply the one that admitted it (policy.ts).
  ["sessions", "policy", "TEXT"],
  // The organizations the session's memberships name (JSON array of ids; null for older rows), kept
  // current by the membership rewrites: what a directory deactivation matches sessions by.
  ["sessions", "member_of", "TEXT"],
  // Every session a revocation or refusal event is about (JSON array), issue 31: what app notices carry.
  ["timeline", "session_ids", "TEXT"],
];

/** Creates the tables and adds the columns later versions introduced. */
export function migrate(sql: SqlStorage): void {
  sql.exec(SCHEMA);
  // Each table's columns read once per wake, not once per added column.
  const columns = new Map<string, Set<string>>();
  for (const [table, column, type] of ADDED_COLUMNS) {
    let has = columns.get(table);
    if (!has) {
      has = new Set(
        sql
          .exec<{ name: string }>(`PRAGMA table_info(${table})`)
          .toArray()
          .map((c) => c.name),
      );
      columns.set(table, has);
    }
    if (!has.has(column)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
  }
}

/** How many rows `table` holds (stats for tests and operators). */
export function countRows(sql: SqlStorage, table: string): number {
  return Number(sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n);
}

/** The membership events, each about one organization of the user. */
export type MembershipEventType =
  | "organization_membership.created"
  | "organization_membership.updated"
  | "organization_membership.deleted";

/**
 * The directory events that deactivate a person in one organization (WorkOS Directory Sync):
 * `dsync.user.updated` reaches the object only when the directory user's state became `inactive`;
 * `dsync.user.deleted` always (the person left the directory). The webhook route matched the
 * directory user to this user by email; the object acts only if this user is a member of the
 * directory's organization (organization-controls/deactivation.ts).
 */
export type DirectoryUserEventType = "dsync.user.updated" | "dsync.user.deleted";

/**
 * An identity-provider event, already verified and reduced by the webhook
 * route to what the object needs. `occurredAt` is the provider's `created_at`, ms.
 */
export type ProviderEvent =
  | { id: string; type: "session.revoked"; occurredAt: number; providerSessionId: string }
  | { id: string; type: "user.deleted"; occurredAt: number }
  | {
      id: string;
      type: DirectoryUserEventType;
      occurredAt: number;
      /** The directory's organization (the directory user's `organization_id`): the only one it may act in. */
      organizationId: string;
    }
  | {
      id: string;
      type: MembershipEventType;
      occurredAt: number;
      organizationId: string;
      /** null: unknown here (keep the slug each session already has for this organization). */
      organizationSlug: string | null;
      /** The role slug of an active membership; null when the user is no longer an active member. */
      role: string | null;
    };

export interface ProviderEventResult {
  /**
   * "duplicate": this event id was already applied (within the retry window);
   * "stale": a later event about the same organization was already applied;
   * "not_member": a directory deactivation from an organization this user is not (or no longer) a
   * member of here: nothing was revoked (the event id is still recorded).
   */
  outcome: "applied" | "duplicate" | "stale" | "not_member";
  /** Sessions revoked (session.revoked, user.deleted, a directory deactivation in the sessions of its organization). */
  revoked: number;
  socketsClosed: number;
  /** Live sessions whose memberships this event queued for a rewrite. */
  sessionsQueued: number;
  /** KV records rewritten by this call (the rest continue by alarm). */
  sessionsRewritten: number;
  /** Rewrites still queued (this event's and others'). */
  pendingRewrites: number;
}

export type {
  RevocationReason,
  RevocationResult,
  SessionInfo,
  SessionMirror,
} from "../../client-sdk/protocol/lifecycle";
