/**
 * The worker under test: the deployed auth worker with its Durable Objects and RPC entrypoint,
 * and its composition (`authApplication`) so a test can build it over a changed env.
 */
export { authApplication } from "../../workers/auth/app";
export {
  AuthService,
  default,
  OrganizationSessions,
  RateLimiterDO,
  UserSessions,
} from "../../workers/auth/worker";
