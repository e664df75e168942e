/**
 * @module gatehouse
 * The client SDK: the framework core (container, providers, middleware,
 * Application) and the platform-bindings module. Everything public is
 * exported here by name; nothing else in this folder is API.
 */

export { StatefulObjectClient } from "./bindings/durable-object";
// Platform bindings
export { KV_MIN_TTL_SECONDS, type KVListOptions, type KVPutOptions, KVStore, type KVValueType } from "./bindings/kv";
export { type AppBindings, Application, type ApplicationOptions, EnvToken } from "./core/application";
export {
  type Constructor,
  Container,
  ContainerError,
  type ContainerErrorCode,
  describeKey,
  type Factory,
  type Key,
  type Lifetime,
  Token,
} from "./core/container";
export {
  type ErrorBody,
  errorResponse,
  GatehouseError,
  type GatehouseErrorOptions,
  jsonError,
  toErrorBody,
} from "./core/errors";
export {
  compose,
  getRequestValue,
  type Handler,
  inheritRequestValues,
  type Middleware,
  type Next,
  RequestKey,
  setRequestValue,
  toHono,
} from "./core/middleware";
export { ServiceProvider } from "./core/provider";
