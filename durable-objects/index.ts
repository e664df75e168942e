/**
 * @module gatehouse-workers/durable-objects
 * The Durable Object classes a host worker exports and binds in its wrangler
 * config and the messages its live channel sends. Exported by name (checked
 * against api/durable-objects.api.md); the objects' test clock, `setObjectClock`,
 * is `gatehouse-workers/testing`.
 */

export { OrganizationSessions } from "./organization-sessions";
export { RateLimiterDO } from "./rate-limiter";
export { SsfStreams } from "./ssf-streams";
export {
  type AppConnection,
  type AppConnections,
  type DirectoryUserEventType,
  type Membership,
  type MembershipEventType,
  type ObjectStats,
  type ProviderEvent,
  type ProviderEventResult,
  type RevocationReason,
  type RevocationResult,
  type SessionInfo,
  type SessionMirror,
  UserSessions,
} from "./user-sessions";
export {
  CLOSE_SESSION_INACTIVE,
  CLOSE_SESSION_REVOKED,
  decodeMessage,
  encodeMessage,
  type LiveMessage,
} from "./user-sessions/messages";
