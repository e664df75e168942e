/** The worker under contract: the deployed auth worker with its Durable Objects and RPC entrypoint. */
export { AuthService, default, OrganizationSessions, RateLimiterDO, UserSessions } from "../../workers/auth/worker";
