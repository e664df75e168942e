/**
 * @module gatehouse-workers/auth
 * The authentication module of the spec. Exported by name; nothing else
 * under workers/auth is API (checked against api/auth.api.md). Its test double,
 * `FakeIdentityClient`, is `gatehouse-workers/testing`.
 */

// Sensitive actions (the same guards as the client SDK's, for the auth worker's own routes)
export {
  NoImpersonationMiddleware,
  RecentAuthMiddleware,
  type RecentAuthOptions,
} from "../../client-sdk/auth-context/recent-auth";
export {
  DBSC_WELL_KNOWN_PATH,
  type DeviceBoundSessionsWellKnown,
} from "../../client-sdk/protocol/device-binding";
export {
  type ConfigCheck,
  type ConfigProblem,
  type ConfigRule,
  checkAuthEnvironment,
  describeProblems,
  redirectUrlProblem,
} from "./config/rules";
export { buildSetCookie, type CookieOptions, parseCookie, parseJwtExpiry } from "./cookies";
export type { HmacSigner, RandomSource } from "./crypto";
export { AuthError, type AuthErrorCode } from "./errors";
export {
  DefaultIdentityClient,
  type DefaultIdentityClientOptions,
  type IdentityEnv,
} from "./identity/default-identity-client";
export {
  type AuthorizationRequest,
  type CodeExchange,
  type IdentityAuthentication,
  type IdentityClient,
  IdentityClientToken,
  type Impersonator,
  type RefreshedTokens,
  type TokenRefresh,
} from "./identity/identity-client";
export { AuthMiddleware, type AuthMiddlewareOptions, type SessionResolver } from "./middleware/auth";
export { currentOrganizationSlug, currentSession, currentUser } from "./middleware/context";
export { type CsrfFailure, CsrfMiddleware, type CsrfOptions, csrfToken } from "./middleware/csrf";
export { GuestMiddleware } from "./middleware/guest";
export { RoleMiddleware, roleInCurrentOrganization } from "./middleware/role";
export { type OrgResolvable, OrgResolver } from "./org";
export {
  type AuthConfig,
  AuthConfigToken,
  type AuthEnv,
  AuthServiceProvider,
  type AuthServiceProviderOptions,
} from "./provider";
export {
  type CallbackOptions,
  createLoginHandler,
  handleCallback,
  handleLogout,
  type LoginHandlerOptions,
  type LogoutOptions,
} from "./routes/handlers";
export type {
  ResolvedSessionConfig,
  RevocationMode,
  SessionCookieConfig,
  SessionHooks,
  SessionManagerOptions,
} from "./session/config";
export type { BindingStatus } from "./session/device-binding";
export {
  type DeviceBoundSessionsWellKnownOptions,
  deviceBoundSessionsWellKnown,
} from "./session/device-binding/well-known";
export { KVSessionStore, type SessionRecord } from "./session/kv-session-store";
export type { BindingRequirement, DeploymentPolicies, PolicySource } from "./session/policy";
export {
  type ResolvedSession,
  type SessionKV,
  SessionManager,
  type SessionMeta,
  type SignInFacts,
} from "./session/session-manager";
export type { AppUser, IdentityUser, OrganizationMembership, OrgResolutionStrategy } from "./types";
