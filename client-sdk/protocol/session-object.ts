/**
 * @module
 * What the per-user session object (`UserSessions`) exchanges with the auth
 * module and, over RPC, with consumers: its session rows, the mirror written at
 * sign-in, revocation reasons and results. Types only.
 */

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
