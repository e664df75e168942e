/**
 * @module
 * The service-binding side of Gatehouse auth, for consuming workers: the
 * `AuthServiceClient`, its error, and `ServiceAuthMiddleware`. Exported by
 * name; it holds no session secret and imports the auth worker by type only.
 */
export {
  AuthServiceClient,
  type AuthServiceClientOptions,
  type CookieSource,
  DEFAULT_AUTH_SERVICE_TIMEOUT_MS,
} from "./client";
export {
  AuthServiceError,
  type AuthServiceErrorCode,
  type AuthServiceErrorOptions,
  toAuthServiceError,
} from "./errors";
export { DEFAULT_TICKET_PATH, type LiveOptions } from "./live";
export {
  type LogoutRefusal,
  logoutRefusal,
  type ServiceLogoutClient,
  ServiceLogoutHandler,
  type ServiceLogoutOptions,
} from "./logout";
export { loginUrlFor, ServiceAuthMiddleware, type ServiceAuthMiddlewareOptions } from "./middleware";
export type {
  AccessTokenResult,
  AppUser,
  AuthService,
  AuthServiceBinding,
  AuthServiceSession,
  KnownDevice,
  LiveTicket,
  OrganizationMembership,
  OrganizationPolicy,
  RevocationActor,
  RevocationReceipt,
  RevocationResult,
  SecurityEvent,
  SecurityEventType,
  ServiceSessionResolver,
  SessionInfo,
  SessionLocation,
  SessionPolicy,
  TimelinePage,
} from "./types";
