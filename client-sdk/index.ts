/**
 * @module gatehouse
 * The client SDK: the framework core (container, providers, middleware,
 * Application) and the platform-bindings module. Everything public is
 * exported here by name; nothing else in this folder is API.
 */

// Service-binding client of the auth worker, for consuming workers (issue 4)
export {
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
  DEFAULT_AUTH_SERVICE_TIMEOUT_MS,
  type LogoutRefusal,
  loginUrlFor,
  logoutRefusal,
  type OrganizationMembership,
  type RevocationResult,
  ServiceAuthMiddleware,
  type ServiceAuthMiddlewareOptions,
  type ServiceLogoutClient,
  ServiceLogoutHandler,
  type ServiceLogoutOptions,
  type ServiceSessionResolver,
  type SessionInfo,
  toAuthServiceError,
} from "./auth-service";
// Platform bindings: wrappers, errors and registration (issue 5)
export { AIClient, type AiOptions } from "./bindings/ai";
export { CONTAINER_ORIGIN, ContainerClient, type ContainerSendOptions } from "./bindings/container";
export {
  DispatchNamespaceClient,
  type DispatchNamespaceClientOptions,
  type DispatchOptions,
} from "./bindings/dispatch";
export { StatefulObjectClient } from "./bindings/durable-object";
export { BindingError, type BindingErrorCode, type BindingErrorOptions } from "./bindings/errors";
export { PooledDbClient, type PooledDbRow } from "./bindings/hyperdrive";
// Platform bindings
export { KV_MIN_TTL_SECONDS, type KVListOptions, type KVPutOptions, KVStore, type KVValueType } from "./bindings/kv";
export { type MessageSendRequest, QueueSender, type QueueSendOptions } from "./bindings/queue";
export {
  type ObjectListOptions,
  type ObjectPutOptions,
  ObjectStorage,
  type StoredObject,
  type StoredObjectBody,
  type StoredObjectList,
} from "./bindings/r2";
export { SERVICE_ORIGIN, ServiceCallError, ServiceClient, type ServiceFetchOptions } from "./bindings/service";
export { type ExecResult, type PreparedStatement, SqlDatabase, type StatementResult } from "./bindings/sql";
export { type VectorizeVector, type VectorQueryOptions, VectorStore } from "./bindings/vectorize";
export { type AppBindings, Application, type ApplicationOptions, EnvToken } from "./core/application";
// Request values shared by every auth middleware (moved from gatehouse/auth, which re-exports them)
export {
  CurrentOrganizationSlug,
  CurrentSession,
  continueAuthenticated,
  currentOrganizationSlug,
  currentUser,
  type RequestSession,
  unauthenticatedResponse,
  wantsJson,
} from "./core/auth-context";
export {
  type Constructor,
  Container,
  ContainerError,
  type ContainerErrorCode,
  describeKey,
  type Factory,
  type Key,
  type Lifetime,
  Token,
} from "./core/container";
export { withDeadline } from "./core/deadline";
export { sha256Hex } from "./core/digest";
export {
  type ErrorBody,
  errorResponse,
  GatehouseError,
  type GatehouseErrorOptions,
  jsonError,
  toErrorBody,
} from "./core/errors";
export {
  compose,
  getRequestValue,
  type Handler,
  inheritRequestValues,
  type Middleware,
  type Next,
  RequestKey,
  setRequestValue,
  toHono,
} from "./core/middleware";
export { ServiceProvider } from "./core/provider";
// Response security headers of every worker (issue 14)
export {
  type ContentSecurityPolicyDirectives,
  DEFAULT_CONTENT_SECURITY_POLICY,
  type ReferrerPolicy,
  SecurityHeadersError,
  type SecurityHeadersErrorCode,
  SecurityHeadersMiddleware,
  type SecurityHeadersOptions,
  type StrictTransportSecurityOptions,
} from "./core/security-headers";
export { type HasExecutionContext, type WaitUntil, waitUntilOf } from "./core/wait-until";
// HtmlTransformer and VersionedKVStore (issue 7)
export {
  type AssignmentFn,
  escapeHtml,
  HtmlTransformError,
  type HtmlTransformErrorCode,
  HtmlTransformer,
  type ScriptPosition,
} from "./html";
// Rate limiting
export {
  activeRateLimiterFake,
  addressKey,
  BlockedKeys,
  blockedKeysFor,
  DEFAULT_POLICY_NAME,
  DEFAULT_PREFIX,
  DEFAULT_STORE_ERROR_POLICY,
  DEFAULT_TIMEOUT_MS,
  DORateLimiter,
  defaultKeyExtractor,
  EDGE_CONNECTING_IP_HEADER,
  edgeAddressKeyExtractor,
  type FixedWindow,
  fakeRateLimiter,
  fixedWindow,
  type KeyExtractor,
  KV_SYNC_INTERVAL_MS,
  KVRateLimiter,
  MAX_BLOCKED_KEYS,
  MAX_CHECK_BODY_BYTES,
  MAX_KEY_LENGTH,
  MAX_LIMIT,
  MAX_WINDOW_SECONDS,
  type PolicyInfo,
  type QuotaState,
  type RateCheckCall,
  type RateCheckInvalidReason,
  type RateCheckRequest,
  type RateCheckResponse,
  type RateCheckResult,
  type RateCheckStub,
  type RateLimitDecision,
  RateLimitError,
  type RateLimitErrorCode,
  type RateLimitedBody,
  RateLimiter,
  type RateLimiterConfig,
  RateLimiterFake,
  type RateLimiterOptions,
  type RateLimitLogger,
  type RateLimitSource,
  rateLimitHeader,
  rateLimitPolicyHeader,
  restoreRateLimiter,
  retryAfterSeconds,
  STORE_FAILURE_RETRY_AFTER,
  type StoreErrorPolicy,
  type StoreUnavailableBody,
  UNKNOWN_KEY,
  validateRateCheck,
} from "./rate-limit";
export {
  BINDING_CONVENTIONS,
  BINDING_WRAPPERS,
  type BindingKind,
  detectBinding,
  PlatformServiceProvider,
} from "./registration";
export {
  DEFAULT_CONTENT_TTL,
  type PointerMetadata,
  VersionedKVError,
  type VersionedKVErrorCode,
  type VersionedKVOptions,
  VersionedKVStore,
} from "./versioned-kv";
