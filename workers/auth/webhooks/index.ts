/**
 * @module
 * Provider webhooks: `registerIdentityWebhook` mounts `POST /webhooks/identity`,
 * which turns verified WorkOS events into session revocations and membership
 * rewrites in the user's `UserSessions` object. Exported by name.
 */
export { applyEvent } from "./dispatch";
export { WebhookError, type WebhookErrorCode } from "./errors";
export { HANDLED_EVENTS, type ParsedEvent, type ParseResult, parseProviderEvent } from "./events";
export { type OrganizationSlugOptions, OrganizationSlugs } from "./organizations";
export { IDENTITY_WEBHOOK_PATH, type IdentityWebhookOptions, registerIdentityWebhook } from "./route";
export { DEFAULT_TOLERANCE_MS, SIGNATURE_HEADER, type Verified, type VerifyFailure, verifyWebhook } from "./verify";
