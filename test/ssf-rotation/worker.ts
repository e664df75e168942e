/**
 * The worker under test: the auth worker's SSF receiver (`POST /ssf/events`, issue 32) for one
 * transmitter whose keys are fetched from its `jwksUri`, registered as `createAuthWorker` registers
 * it but on a clock the tests hold (`clock`): the route takes a clock and its key cache ages by it,
 * while `createAuthWorker` passes none. No wall-clock wait: a test moves `clock` instead.
 */
import { env } from "cloudflare:workers";
import { Application } from "gatehouse-workers";
import { AuthServiceProvider } from "gatehouse-workers/auth";
import { registerSsfReceiver, resolveSsfTransmitters } from "../../workers/auth/ssf/receiver";

export const TRANSMITTER = "https://idp.rotation.test";
export const JWKS_URI = "https://idp.rotation.test/.well-known/jwks.json";
export const AUDIENCE = "https://auth.example.com/ssf";
export const ISS_SUB_ISSUER = "https://api.workos.com";

/** The receiver's clock (ms): the wall clock when the module loads, then only what a test sets. */
export const clock = { now: Date.now() };

const app = Application.create(env, { providers: [new AuthServiceProvider({ routes: false })] });
registerSsfReceiver(
  app,
  resolveSsfTransmitters([
    { issuer: TRANSMITTER, jwksUri: JWKS_URI, audience: AUDIENCE, issSubIssuer: ISS_SUB_ISSUER },
  ]),
  { clock: () => clock.now },
);

export default { fetch: app.fetch };
export { OrganizationSessions, RateLimiterDO, UserSessions } from "gatehouse-workers/worker";
