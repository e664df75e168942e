/**
 * @module
 * Contracts shared by the three layers (client SDK → durable objects → workers), kept in the
 * lowest one, one file per feature of the session core: `lifecycle` (session rows, mirror,
 * revocation), `policy`, `security-record` (timeline, devices, receipts, deliveries),
 * `organization-controls` (kill switch), `provider-access` (provider tokens, live tickets); plus
 * the people types (`users`), the KV record and its key layout (`session-record`) and the
 * `AuthService` RPC interface (`auth-service`). Exported by name; nothing here imports an upper layer.
 */

export type { AuthServiceApi, ResolveOptions, RpcSession } from "./auth-service";
export type { RegisterResult, RevocationReason, RevocationResult, SessionInfo, SessionMirror } from "./lifecycle";
export type { OrganizationEpoch } from "./organization-controls";
export { ORG_EPOCH_PREFIX, orgEpochKey } from "./organization-controls";
export type { SessionPolicy } from "./policy";
export type { AccessTokenResult, LiveTicket } from "./provider-access";
export type {
  KnownDevice,
  RevocationActor,
  RevocationReceipt,
  SecurityEvent,
  SecurityEventType,
  SessionLocation,
  TimelinePage,
} from "./security-record";
export {
  isRevokedMark,
  isSessionRecord,
  KVSessionStore,
  REVOKED_MARK_TTL_SECONDS,
  type RevokedMark,
  revokedMark,
  SESSION_PREFIX,
  type SessionRecord,
  type StoredSession,
} from "./session-record";
export type { AppUser, IdentityUser, OrganizationMembership } from "./users";
