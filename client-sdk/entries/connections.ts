/**
 * @module gatehouse-workers/connections
 * What a consuming app needs so a revocation closes its own live connections (issue 31):
 * `SessionSockets` for each Durable Object that holds WebSockets, the per-user registry
 * `SessionConnections`, the `GatehouseRevocations` entrypoint the auth worker's service binding
 * calls, the session tag, the notice contract and its close codes. Apart from `/client` because it
 * imports `cloudflare:workers`; it pulls in no partyserver, WorkOS SDK or superjson.
 */
export {
  type AcceptOptions,
  type AcceptRefusal,
  type AcceptResult,
  AppConnectionsError,
  type AppConnectionsErrorCode,
  DEFAULT_AUTH_BINDING,
  DEFAULT_REGISTRY_BINDING,
  GatehouseRevocations,
  type HolderRegistration,
  MAX_APP_TAGS,
  type NoticeVerdict,
  parseNotice,
  REGISTRY_UNAVAILABLE_CLOSE,
  SessionConnections,
  type SessionConnectionsOptions,
  type SessionHolder,
  type SessionRegistry,
  SessionSockets,
  type SessionSocketsOptions,
  sessionOf,
  sessionTag,
} from "../app-connections";
export {
  APP_CLOSE,
  MAX_NOTICE_SESSIONS,
  type RevocationReceiver,
  SESSION_TAG_PREFIX,
  type SessionsEndedKind,
  type SessionsEndedNotice,
} from "../protocol/app-connections";
