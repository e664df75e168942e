/**
 * @module
 * The types of the service-binding client, from the client SDK's protocol
 * module (the contract the auth worker's `AuthService` entrypoint implements):
 * a consuming worker type-checks against the contract, never the auth worker.
 */
import type { AuthServiceApi, LiveTicket, RpcSession, SessionPolicy } from "../protocol";

export type {
  AccessTokenResult,
  AppUser,
  KnownDevice,
  LiveTicket,
  OrganizationMembership,
  RevocationActor,
  RevocationReceipt,
  RevocationResult,
  SecurityEvent,
  SecurityEventType,
  SessionInfo,
  SessionLocation,
  SessionPolicy,
  TimelinePage,
} from "../protocol";

/** The `AuthService` entrypoint's methods (`AuthServiceApi`). */
export type AuthService = AuthServiceApi;

/** An organization's session policy and where it comes from (the operator's, the configured one, or the default). */
export interface OrganizationPolicy {
  policy: SessionPolicy;
  source: "operator" | "configured" | "default";
}

/**
 * A service binding to the auth worker's `AuthService` entrypoint (`[[services]] … entrypoint =
 * "AuthService"`), e.g. `Service<AuthService>` from `wrangler types`: anything with the entrypoint's
 * methods. Answers are checked for their shape at run time, so the stub's return types are not relied on.
 */
export type AuthServiceBinding = {
  [M in keyof AuthServiceApi]: (...args: Parameters<AuthServiceApi[M]>) => PromiseLike<unknown>;
};

/** What `resolveSession` answers: the public session id, the user and when the session ends (ms). */
export type AuthServiceSession = RpcSession;

/** Anything that resolves the session of a request over the service binding (`AuthServiceClient`). */
export interface ServiceSessionResolver {
  resolveSession(request: Request): Promise<AuthServiceSession | null>;
  /** A live-channel ticket for the request's session (needed by `ServiceAuthMiddleware`'s `live` option). */
  liveTicket?(request: Request): Promise<LiveTicket | null>;
}
