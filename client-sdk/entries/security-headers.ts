/**
 * @module gatehouse-workers/security-headers
 * `SecurityHeadersMiddleware`: the response headers every answer of the auth worker carries
 * (nosniff, referrer policy, frame denial, a Content-Security-Policy on HTML, HSTS over https),
 * for any worker, with its options, defaults and error class. It only sets headers; it never
 * reads or changes a body.
 */
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
} from "../core/security-headers";
