/**
 * @module gatehouse-workers/connections
 * What a consuming app needs so a revocation closes its own live connections (issue 31):
 * `SessionSockets` for each Durable Object that holds WebSockets, the per-user registry
 * `SessionConnections`, the `GatehouseRevocations` entrypoint the auth worker's service binding
 * calls, `sessionEventStream` for a plain worker's server-sent event stream, the session tag, the
 * notice contract and its close codes. Apart from `/client` because it
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
  type EventStreamRefusal,
  GatehouseRevocations,
  type HolderRegistration,
  MAX_APP_TAGS,
  type NoticeVerdict,
  parseNotice,
  REGISTRY_UNAVAILABLE_CLOSE,
  SESSION_STREAM_EVENTS,
  SessionConnections,
  type SessionConnectionsOptions,
  type SessionEventStream,
  type SessionEventStreamOptions,
  type SessionEventStreamResult,
  type SessionHolder,
  type SessionRefusal,
  type SessionRegistry,
  SessionSockets,
  type SessionSocketsOptions,
  sessionEventStream,
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
