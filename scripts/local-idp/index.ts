/**
 * The local identity provider's public surface for Node-side code (Vitest globalSetup,
 * `scripts/start.mjs`): start a server, its defaults, and the demo directory's stable ids.
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
export { LOCAL_IDP_DEFAULTS, type LocalIdp, type LocalIdpOptions, startLocalIdp } from "./server.ts";
