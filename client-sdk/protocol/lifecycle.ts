/**
 * @module
 * Feature contract — session lifecycle: what the per-user session object (`UserSessions`)
 * exchanges with the auth module and, over RPC, with consumers: its session rows, the mirror
 * written at sign-in, revocation reasons and results. Types only. (The KV record itself is
 * `session-record.ts`.)
 */

import type { SessionPolicy } from "./policy";
import type { RevocationActor, SessionLocation } from "./security-record";

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
  /** The device as a person reads it ("Firefox 140 on macOS"); null for sessions from before it was kept. */
  device: string | null;
  /** Where it signed in from. */
  location: SessionLocation | null;
  /** Its sign-in was the first from this device and place within the retention window (`session.new_device`). */
  newDevice: boolean;
  /** A device key is bound to it (DBSC, `protocol/device-binding.ts`); absent where the answer does not say. */
  bound?: boolean;
}

/** What `SessionManager` mirrors into the object when a session is created. */
export interface SessionMirror {
  id: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  absoluteExpiresAt: number;
  organizationId?: string;
  /**
   * Every organization the session's memberships name (the sign-in's active memberships, by id):
   * how a directory deactivation finds a session signed in to no organization that carries its role.
   */
  memberOf?: string[];
  userAgent?: string;
  ip?: string;
  providerSessionId?: string;
  /** The device as a person reads it ("Firefox 140 on macOS"). */
  device?: string;
  /** The device without versions ("Firefox on macOS"): with the location, what makes a device new. */
  deviceClass?: string;
  location?: SessionLocation;
  /** The cap on the user's sessions that applies to this sign-in (its organization's, else the default). */
  policy?: SessionPolicy;
  /** Record the sign-in on the user's timeline (default true). */
  record?: boolean;
  /**
   * The provider's tokens from the sign-in: kept in the user's object only (never in KV or a
   * cookie); the refresh token is spent by one refresh at a time (`UserSessions.accessToken`).
   */
  tokens?: { accessToken?: string; accessTokenExpiresAt?: number; refreshToken?: string };
  /** Set when an operator signed in as this person: recorded on the timeline. */
  impersonator?: { email: string; reason: string | null };
}

/** What the session object answers to a sign-in. */
export interface RegisterResult {
  registered: boolean;
  /** Why not: the id was revoked before, or the cap refuses a new session. */
  refusedBecause?: "revoked" | "session_limit";
  /** The first sign-in from this device and place within the retention window. */
  newDevice?: boolean;
  /** Sessions the cap signed out to make room (`evict-oldest`). */
  evicted?: number;
}

export type RevocationReason =
  | "revoked"
  | "logout"
  | "revoked_all"
  | "signed_out_elsewhere"
  | "provider"
  | "user_deleted"
  /**
   * The person was deactivated in their organization's directory (WorkOS Directory Sync: the
   * directory user's state became `inactive`, or the user left the directory).
   */
  | "user_deactivated"
  /** The same browser signed in again as the same person (a sign-in or a step-up): its tabs reload into the new session. */
  | "replaced"
  /** The same browser signed in as another person: the old session's tabs go to the signed-out page. */
  | "replaced_by_other_user";

export interface RevocationResult {
  /** The receipt of this revocation (fetch it later by id); absent when nothing was revoked. */
  receiptId?: string;
  /** Sessions revoked by this call. */
  revoked: number;
  /** Open sockets told and closed. */
  socketsClosed: number;
  /** KV records still to delete in later invocations (alarm). */
  pendingKvDeletes: number;
  /** Milliseconds from the call until every session was refused in strict mode (the commit). */
  refusedAfterMs?: number;
}

export type { RevocationActor };
