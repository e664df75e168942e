/**
 * @module
 * Contracts shared by the three layers (client SDK → durable objects →
 * workers), kept in the lowest one: the people types, the KV session record and
 * its key layout, what the session objects exchange, and the `AuthService` RPC
 * interface. Exported by name; nothing here imports an upper layer.
 */
export type { AccessTokenResult, AuthServiceApi, LiveTicket, RpcSession } from "./auth-service";
export type {
  KnownDevice,
  OrganizationEpoch,
  RevocationActor,
  RevocationReceipt,
  SecurityEvent,
  SecurityEventType,
  SessionLocation,
  SessionPolicy,
  TimelinePage,
} from "./security";
export type {
  RegisterResult,
  RevocationReason,
  RevocationResult,
  SessionInfo,
  SessionMirror,
} from "./session-object";
export {
  isRevokedMark,
  isSessionRecord,
  KVSessionStore,
  ORG_EPOCH_PREFIX,
  orgEpochKey,
  REVOKED_MARK_TTL_SECONDS,
  type RevokedMark,
  revokedMark,
  SESSION_PREFIX,
  type SessionRecord,
  type StoredSession,
} from "./session-record";
export type { AppUser, IdentityUser, OrganizationMembership } from "./users";
