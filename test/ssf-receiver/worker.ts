/**
 * The worker under test: `createAuthWorker` with one upstream SSF transmitter (issue 32, receiver)
 * whose public keys are given inline, WorkOS-style `iss_sub` subjects from `ISS_SUB_ISSUER`.
 */
import { createAuthWorker } from "gatehouse-workers/worker";
import { PRIVATE_KEYS, publicOf } from "./keys";

export const TRANSMITTER = "https://idp.example.test";
export const AUDIENCE = "https://auth.example.com/ssf";
export const ISS_SUB_ISSUER = "https://api.workos.com";

export default createAuthWorker({
  ssf: {
    transmitters: [
      {
        issuer: TRANSMITTER,
        jwks: { keys: [publicOf(PRIVATE_KEYS.ec), publicOf(PRIVATE_KEYS.rsa)] },
        audience: AUDIENCE,
        issSubIssuer: ISS_SUB_ISSUER,
      },
    ],
  },
});
export { AuthService, OrganizationSessions, RateLimiterDO, UserSessions } from "gatehouse-workers/worker";
