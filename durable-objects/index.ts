/**
 * @module gatehouse/durable-objects
 * The Durable Object classes a host worker exports and binds in its
 * wrangler config. Exported by name.
 */

export { objectNow, setObjectClock } from "./clock";
export { CONTAINER_PORT, CONTAINER_SLEEP_AFTER, GatehouseContainer } from "./container";
export { RateLimiterDO } from "./rate-limiter";
// Provider events (issue 9)
export type {
  Membership,
  MembershipEventType,
  ProviderEvent,
  ProviderEventResult,
} from "./user-sessions";
export {
  CLOSE_SESSION_INACTIVE,
  CLOSE_SESSION_REVOKED,
  decodeMessage,
  encodeMessage,
  type LiveMessage,
  type RevocationReason,
  type RevocationResult,
  type SessionInfo,
  type SessionMirror,
  UserSessions,
} from "./user-sessions";
