/** The worker under test: the deployed auth worker itself. */
export { AuthService, default, RateLimiterDO, UserSessions } from "../../workers/auth/worker";
