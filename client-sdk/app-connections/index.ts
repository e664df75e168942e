/**
 * @module
 * App connections, the app side (issue 31): close an app's own WebSockets when the auth worker
 * says their sessions ended. `SessionSockets` (in each object holding sockets), `SessionConnections`
 * (the per-user registry), `GatehouseRevocations` (the entrypoint the auth worker calls), the
 * session tag, the notice validator, and `sessionEventStream` (a plain worker's event stream). Exported by name; imports the auth worker by type only.
 */
export {
  DEFAULT_AUTH_BINDING,
  DEFAULT_REGISTRY_BINDING,
  type HolderRegistration,
  type SessionHolder,
  type SessionRegistry,
} from "./bindings";
export { GatehouseRevocations } from "./entrypoint";
export { AppConnectionsError, type AppConnectionsErrorCode } from "./errors";
export { type NoticeVerdict, parseNotice } from "./notice";
export { SessionConnections, type SessionConnectionsOptions } from "./registry";
export type { SessionRefusal } from "./session";
export {
  type AcceptOptions,
  type AcceptRefusal,
  type AcceptResult,
  MAX_APP_TAGS,
  REGISTRY_UNAVAILABLE_CLOSE,
  SessionSockets,
  type SessionSocketsOptions,
} from "./sockets";
export {
  type EventStreamRefusal,
  SESSION_STREAM_EVENTS,
  type SessionEventStream,
  type SessionEventStreamOptions,
  type SessionEventStreamResult,
  sessionEventStream,
} from "./stream";
export { sessionOf, sessionTag } from "./tags";
