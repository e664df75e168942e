/**
 * The local identity provider's public surface for Node-side code (Vitest globalSetup,
 * `scripts/start.mjs`): start a server, its defaults, the demo directory's stable ids, and the
 * webhook signer and settings, and the security-event receiver's settings.
 * Node only; never import it from worker code.
 */
export {
  ACME_ID,
  ADA_ID,
  ALAN_ID,
  DEMO_MEMBERSHIPS,
  DEMO_ORGANIZATIONS,
  DEMO_USERS,
  GLOBEX_ID,
  GRACE_ID,
  MARGARET_ID,
  ROLE_PERMISSIONS,
} from "./demo-data.ts";
export { FAULT_ENDPOINTS, type FaultEndpoint } from "./faults.ts";
export { type IdentityVariables, identityVariables, type LocalIdentityCoordinates } from "./identity-env.ts";
export { MAX_SECURITY_EVENT_BYTES } from "./security-event-routes.ts";
export { INBOX_SIZE, type ReceivedSecurityEvent, type SecurityEventsConfig } from "./security-events.ts";
export { LOCAL_IDP_DEFAULTS, type LocalIdp, type LocalIdpOptions, startLocalIdp } from "./server.ts";
export { signWebhook, WEBHOOK_SIGNATURE_HEADER } from "./webhook-signature.ts";
export { type Delivery, type DeliveryStatus, type WebhookConfig, webhookConfigFromEnv } from "./webhooks.ts";
