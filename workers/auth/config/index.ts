/**
 * @module
 * The auth worker's environment configuration: the fail-closed guard in front
 * of the worker and its RPC entrypoint, over the pure rules of `./rules`
 * (shared with `npm start`, public through `gatehouse-workers/auth`).
 */
export { assertConfigured, type CheckedOptions, configVerdict, unavailableResponse } from "./guard";
export { type ConfigCheck, checkAuthEnvironment } from "./rules";
