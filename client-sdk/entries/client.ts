/**
 * @module gatehouse-workers/client
 * What a consuming worker needs to use an auth worker over its service binding:
 * `AuthServiceClient`, `ServiceAuthMiddleware`, `ServiceLogoutHandler`, the request helpers
 * (`currentUser`, …), the sensitive-action guards, and the receiver of the signed security-event
 * webhook. It holds no session secret and no session store, and imports the auth worker by type only.
 */
export { currentOrganizationSlug, currentUser, wantsJson } from "../auth-context";
export {
  impersonationBanner,
  NoImpersonationMiddleware,
  RecentAuthMiddleware,
  type RecentAuthOptions,
} from "../auth-context/recent-auth";
export {
  type AccessTokenResult,
  type AppUser,
  type AuthService,
  type AuthServiceBinding,
  AuthServiceClient,
  type AuthServiceClientOptions,
  AuthServiceError,
  type AuthServiceErrorCode,
  type AuthServiceErrorOptions,
  type AuthServiceSession,
  type CookieSource,
  DEFAULT_TICKET_PATH,
  type KnownDevice,
  type LiveOptions,
  type LiveTicket,
  loginUrlFor,
  type OrganizationMembership,
  type OrganizationPolicy,
  type RevocationActor,
  type RevocationReceipt,
  type RevocationResult,
  type SecurityEvent,
  type SecurityEventType,
  ServiceAuthMiddleware,
  type ServiceAuthMiddlewareOptions,
  type ServiceLogoutClient,
  ServiceLogoutHandler,
  type ServiceLogoutOptions,
  type ServiceSessionResolver,
  type SessionInfo,
  type SessionLocation,
  type SessionPolicy,
  type TimelinePage,
} from "../auth-service";
export {
  SECURITY_EVENT_ID_HEADER,
  SECURITY_EVENT_SIGNATURE_HEADER,
  SECURITY_EVENT_TOLERANCE_MS,
  type SecurityEventVerdict,
  signSecurityEvent,
  verifySecurityEvent,
} from "../security-events";
