/**
 * @module gatehouse-workers
 * The framework core of the spec, and nothing else: `Application`, the `Container` and its
 * tokens, `ServiceProvider`, the middleware interface (`Middleware`, `compose`, `toHono`,
 * request values) and the error types. Every other concern has its own subpath
 * (`gatehouse-workers/bindings`, `/rate-limit`, `/html`, `/versioned-kv`, `/client`, …;
 * client-sdk/entries/), so a worker bundles and type-checks only what it imports.
 */
export { type AppBindings, Application, type ApplicationOptions, EnvToken } from "./core/application";
export {
  type Constructor,
  Container,
  ContainerError,
  type ContainerErrorCode,
  type Factory,
  type Key,
  type Lifetime,
  Token,
} from "./core/container";
export { type ErrorBody, GatehouseError, type GatehouseErrorOptions, jsonError } from "./core/errors";
export {
  compose,
  getRequestValue,
  type Handler,
  type Middleware,
  type Next,
  RequestKey,
  setRequestValue,
  toHono,
} from "./core/middleware";
export { ServiceProvider } from "./core/provider";
