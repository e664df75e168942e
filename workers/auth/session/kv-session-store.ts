/**
 * @module
 * `KVSessionStore` and the session record (spec): defined once in the client
 * SDK's protocol module, because the session objects read and write the same
 * records. Re-exported here for the auth module.
 */
export {
  isSessionRecord,
  KVSessionStore,
  SESSION_PREFIX,
  type SessionRecord,
} from "../../../client-sdk/protocol/session-record";
