/**
 * @module gatehouse-workers
 * The client SDK: the framework core (container, providers, middleware,
 * Application), the platform-bindings module, rate limiting, HtmlTransformer,
 * VersionedKVStore and the service-binding client of the auth worker. This
 * list is the public API (checked against api/gatehouse-workers.api.md);
 * nothing else in this folder is, however it is exported between modules.
 */

export { currentOrganizationSlug, currentUser, wantsJson } from "./auth-context";
export {
  impersonationBanner,
  NoImpersonationMiddleware,
  RecentAuthMiddleware,
  type RecentAuthOptions,
} from "./auth-context/recent-auth";
// Service-binding client of the auth worker, for consuming workers
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
} from "./auth-service";
// Platform bindings: wrappers, their option types, errors and registration
export { AIClient, type AiOptions } from "./bindings/ai";
export { ContainerClient, type ContainerSendOptions } from "./bindings/container";
export {
  DispatchNamespaceClient,
  type DispatchNamespaceClientOptions,
  type DispatchOptions,
} from "./bindings/dispatch";
export { StatefulObjectClient } from "./bindings/durable-object";
export { BindingError, type BindingErrorCode, type BindingErrorOptions } from "./bindings/errors";
export {
  PooledDbClient,
  type PooledDbClientOptions,
  type PooledDbDriver,
  type PooledDbRow,
} from "./bindings/hyperdrive";
export { type KVListOptions, type KVPutOptions, KVStore, type KVValueType } from "./bindings/kv";
export { type MessageSendRequest, QueueSender, type QueueSendOptions } from "./bindings/queue";
export {
  type ObjectListOptions,
  type ObjectPutOptions,
  ObjectStorage,
  type StoredObject,
  type StoredObjectBody,
  type StoredObjectList,
} from "./bindings/r2";
export { ServiceCallError, ServiceClient, type ServiceFetchOptions } from "./bindings/service";
export { type ExecResult, type PreparedStatement, SqlDatabase, type StatementResult } from "./bindings/sql";
export { type VectorizeVector, type VectorQueryOptions, VectorStore } from "./bindings/vectorize";
// Framework core
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
export {
  allowContentSources,
  type ContentSecurityPolicyDirectives,
  DEFAULT_CONTENT_SECURITY_POLICY,
  type ReferrerPolicy,
  SecurityHeadersError,
  type SecurityHeadersErrorCode,
  SecurityHeadersMiddleware,
  type SecurityHeadersOptions,
  type StrictTransportSecurityOptions,
} from "./core/security-headers";
// HtmlTransformer, the shared page look, and VersionedKVStore
export {
  type AssignmentFn,
  escapeHtml,
  HtmlTransformError,
  type HtmlTransformErrorCode,
  HtmlTransformer,
  PAGE_STYLES,
  type PageDocument,
  type PageHeader,
  type PageLink,
  type PagePerson,
  type PageSignOut,
  renderPage,
  renderPageHeader,
  type ScriptAttributes,
  type ScriptPosition,
} from "./html";
// Rate limiting
export {
  DORateLimiter,
  type DORateLimiterOptions,
  defaultKeyExtractor,
  edgeAddressKeyExtractor,
  fakeRateLimiter,
  type KeyExtractor,
  KVRateLimiter,
  type RateCheckBatchCall,
  type RateCheckBatchResult,
  type RateCheckCall,
  type RateCheckRequest,
  type RateCheckResponse,
  type RateCheckResult,
  type RateLeaseCall,
  type RateLeaseResult,
  type RateLimitDecision,
  RateLimitError,
  type RateLimitErrorCode,
  type RateLimitedBody,
  RateLimiter,
  type RateLimiterConfig,
  RateLimiterFake,
  type RateLimiterObjects,
  type RateLimiterOptions,
  type RateLimitLogger,
  type RateLimitSource,
  type RateReleaseCall,
  type RateReleaseResult,
  restoreRateLimiter,
  type StoreErrorPolicy,
  type StoreUnavailableBody,
} from "./rate-limit";
export { PlatformServiceProvider, type PlatformServiceProviderOptions } from "./registration";
// Receiving the security-event webhook
export {
  SECURITY_EVENT_ID_HEADER,
  SECURITY_EVENT_SIGNATURE_HEADER,
  SECURITY_EVENT_TOLERANCE_MS,
  type SecurityEventVerdict,
  signSecurityEvent,
  verifySecurityEvent,
} from "./security-events";
export {
  VersionedKVError,
  type VersionedKVErrorCode,
  type VersionedKVOptions,
  VersionedKVStore,
} from "./versioned-kv";
