/**
 * @module gatehouse-workers/worker
 * The deployable auth worker: `createAuthWorker(options)` for the fetch
 * handler, and the classes its wrangler config binds (`UserSessions`,
 * `OrganizationSessions`, `RateLimiterDO`, and `SsfStreams` with shared-signals
 * receivers) and its service-binding entrypoint (`AuthService`).
 */
export { OrganizationSessions } from "../../../durable-objects/organization-sessions";
export { RateLimiterDO } from "../../../durable-objects/rate-limiter";
export { SsfStreams } from "../../../durable-objects/ssf-streams";
export { UserSessions } from "../../../durable-objects/user-sessions";
export type { AuthWorkerEnv } from "../app";
export type { AuthWorkerBindings, AuthWorkerOptions, AuthWorkerRoutes } from "../app/options";
export { AUTH_RATE_LIMITS, type AuthRateLimit, type AuthRateLimits, type AuthRouteFamily } from "../limits";
export { AuthService, type RpcSession } from "../rpc/auth-service";
export type { SessionHooks } from "../session/config";
export type { SsfReceiverGrantOption, SsfTransmitterOptions } from "../ssf/transmitter";
export { type AuthWorkerHandler, createAuthWorker } from "./create-auth-worker";
