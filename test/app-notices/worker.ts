/**
 * The worker under test: the deployed auth worker with one named app, `receiver`, behind the
 * service binding APP_RECEIVER (the auxiliary worker receiver.js). `createAuthWorker` gives the
 * session objects their `apps` (UserSessions.apps), exactly as a team's worker would.
 */
import { createAuthWorker } from "../../workers/auth/factory";

export default createAuthWorker({ apps: { receiver: { binding: "APP_RECEIVER" } } });
export { AuthService, OrganizationSessions, RateLimiterDO, UserSessions } from "../../workers/auth/factory";
