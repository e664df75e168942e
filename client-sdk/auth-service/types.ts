/**
 * @module
 * The types of the service-binding client, taken from the auth worker's
 * `AuthService` entrypoint by type-only imports: they vanish at build time,
 * so a consuming worker never bundles the auth worker. Nothing here may
 * become a value import.
 */
import type { RevocationResult, SessionInfo } from "../../durable-objects/user-sessions";
import type { AuthService, RpcSession } from "../../workers/auth/rpc/auth-service";
import type { AppUser, OrganizationMembership } from "../../workers/auth/types";

export type { AppUser, AuthService, OrganizationMembership, RevocationResult, SessionInfo };

/** A service binding to the auth worker's `AuthService` entrypoint (`[[services]] … entrypoint = "AuthService"`). */
export type AuthServiceBinding = Service<AuthService>;

/** What `resolveSession` answers: the public session id, the user and when the session ends (ms). */
export type AuthServiceSession = RpcSession;

/** Anything that resolves the session of a request over the service binding (`AuthServiceClient`). */
export interface ServiceSessionResolver {
  resolveSession(request: Request): Promise<AuthServiceSession | null>;
}
