/** The worker under test: the deployed auth worker itself. */
export { default } from "../../workers/auth/worker";
