/** The worker under test: the deployed auth worker itself. */
export { AuthService, default, UserSessions } from "../../workers/auth/worker";
