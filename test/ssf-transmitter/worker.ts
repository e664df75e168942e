/**
 * An auth worker as a team turns the shared-signals transmitter on: `ssf: {}` (issuer: the public
 * origin; keys: the `SSF_SIGNING_KEYS` secret).
 */
import { createAuthWorker } from "gatehouse-workers/worker";

export default createAuthWorker({ ssf: {} });
