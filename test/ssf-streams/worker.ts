/**
 * The worker under test: `createAuthWorker` as a team turns shared-signals streams on (issue 32,
 * transmitter): two receivers, each with its own bearer token (a secret named here) and the
 * origins its push endpoints may be under. Every push leaves through `fetch` and reaches the
 * reference push receiver (test/ssf-reference/push-receiver.js, vitest.config.ts).
 */
import { createAuthWorker } from "gatehouse-workers/worker";

export const ISSUER = "https://auth.example.com";
export const SIEM = "https://siem.example.com";
export const WAREHOUSE = "https://warehouse.example.org";

export default createAuthWorker({
  ssf: {
    receivers: {
      siem: { token: "SSF_TOKEN_SIEM", endpoints: [SIEM] },
      warehouse: { token: "SSF_TOKEN_WAREHOUSE", endpoints: [WAREHOUSE], audience: "warehouse-prod", maxStreams: 2 },
      // A name the bearer parser also says for "no Authorization header": it must not let one in.
      missing: { token: "SSF_TOKEN_MISSING", endpoints: ["https://missing.example.org"] },
    },
  },
});
export { AuthService, OrganizationSessions, RateLimiterDO, SsfStreams, UserSessions } from "gatehouse-workers/worker";
