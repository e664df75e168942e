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
`;

/** The membership events, each about one organization of the user. */
export type MembershipEventType =
  | "organization_membership.created"
  | "organization_membership.updated"
  | "organization_membership.deleted";

/**
 * An identity-provider event, already verified and reduced by the webhook
 * route to what the object needs. `occurredAt` is the provider's `created_at`, ms.
 */
export type ProviderEvent =
  | { id: string; type: "session.revoked"; occurredAt: number; providerSessionId: string }
  | { id: string; type: "user.deleted"; occurredAt: number }
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
   * "stale": a later event about the same organization was already applied.
   */
  outcome: "applied" | "duplicate" | "stale";
  /** Sessions revoked (session.revoked, user.deleted). */
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
} from "../../client-sdk/protocol/session-object";
