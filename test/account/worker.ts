/** The worker under test: the deployed auth worker (with the account routes) and its session objects. */
export { AuthService, default, OrganizationSessions, UserSessions } from "../../workers/auth/worker";
