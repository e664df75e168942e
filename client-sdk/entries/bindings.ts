/**
 * @module gatehouse-workers/bindings
 * The platform-bindings module of the spec: a typed wrapper per runtime binding, their option
 * types, `BindingError`, and `PlatformServiceProvider`, which registers them in the container.
 * Exported by name; nothing here reaches the auth worker, Durable Object classes or the
 * optional peers (postgres.js is `gatehouse-workers/hyperdrive`, containers `/containers`).
 */
export { AIClient, type AiOptions } from "../bindings/ai";
export { ContainerClient, type ContainerSendOptions } from "../bindings/container";
export {
  DispatchNamespaceClient,
  type DispatchNamespaceClientOptions,
  type DispatchOptions,
} from "../bindings/dispatch";
export { StatefulObjectClient } from "../bindings/durable-object";
export { BindingError, type BindingErrorCode, type BindingErrorOptions } from "../bindings/errors";
export {
  PooledDbClient,
  type PooledDbClientOptions,
  type PooledDbDriver,
  type PooledDbRow,
} from "../bindings/hyperdrive";
export { type KVListOptions, type KVPutOptions, KVStore, type KVValueType } from "../bindings/kv";
export { type MessageSendRequest, QueueSender, type QueueSendOptions } from "../bindings/queue";
export {
  type ObjectListOptions,
  type ObjectPutOptions,
  ObjectStorage,
  type StoredObject,
  type StoredObjectBody,
  type StoredObjectList,
} from "../bindings/r2";
export { ServiceCallError, ServiceClient, type ServiceFetchOptions } from "../bindings/service";
export { type ExecResult, type PreparedStatement, SqlDatabase, type StatementResult } from "../bindings/sql";
export { type VectorizeVector, type VectorQueryOptions, VectorStore } from "../bindings/vectorize";
export { PlatformServiceProvider, type PlatformServiceProviderOptions } from "../registration";
