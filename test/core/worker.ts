/**
 * The worker under test: re-exports the auth worker (its default handler
 * and Durable Objects) beside fixtures that only tests bind.
 */
export { default } from "../../workers/auth/worker";
