/**
 * @module gatehouse/auth
 * The authentication module of the spec. Exported by name; nothing else
 * under workers/auth is API.
 */

export {
  type ConfigCheck,
  type ConfigProblem,
  type ConfigRule,
  checkAuthEnvironment,
  describeProblems,
  isLoopbackHost,
  MIN_SECRET_LENGTH,
  redirectUrlProblem,
  secretProblem,
} from "./config/rules";
export { buildSetCookie, type CookieOptions, parseCookie, parseJwtExpiry } from "./cookies";
export { AuthError, type AuthErrorCode } from "./errors";
export {
  DefaultIdentityClient,
  type DefaultIdentityClientOptions,
  type IdentityEnv,
} from "./identity/default-identity-client";
export { type FakeFailure, FakeIdentityClient, type FakeLogin } from "./identity/fake-identity-client";
export {
  type AuthorizationRequest,
  type CodeExchange,
  type IdentityAuthentication,
  type IdentityClient,
  IdentityClientToken,
} from "./identity/identity-client";
export { AuthMiddleware, type AuthMiddlewareOptions, type SessionResolver } from "./middleware/auth";
export { currentOrganizationSlug, currentSession, currentUser } from "./middleware/context";
export { type CsrfFailure, CsrfMiddleware, type CsrfOptions, csrfToken } from "./middleware/csrf";
export { GuestMiddleware } from "./middleware/guest";
export { RoleMiddleware, roleInCurrentOrganization } from "./middleware/role";
export { ORG_SLUG, type OrgResolvable, OrgResolver } from "./org";
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
export { LOGIN_FLOW_TTL_SECONDS } from "./routes/login-flow";
export { safeReturnTo } from "./routes/return-to";
export {
  type RevocationMode,
  SESSION_DEFAULTS,
  type SessionCookieConfig,
  type SessionManagerOptions,
} from "./session/config";
export { KVSessionStore, SESSION_PREFIX, type SessionRecord } from "./session/kv-session-store";
export { type ResolvedSession, type SessionKV, SessionManager, type SessionMeta } from "./session/session-manager";
export type { AppUser, IdentityUser, OrganizationMembership, OrgResolutionStrategy } from "./types";
