/**
 * @module
 * The deployed auth worker's entry: the fetch handler, the `AuthService`
 * RPC entrypoint, and the Durable Object classes wrangler.toml binds.
 * It holds no logic of its own; `app/` composes the modules.
 */
import { type AuthWorkerEnv, authApplication } from "./app";

export { RateLimiterDO } from "../../durable-objects/rate-limiter";
export { UserSessions } from "../../durable-objects/user-sessions";
export type { AuthWorkerEnv } from "./app";
export { AuthService, type RpcSession } from "./rpc/auth-service";

export default {
  fetch(request, env, ctx) {
    return authApplication(env).fetch(request, env, ctx);
  },
} satisfies ExportedHandler<AuthWorkerEnv>;
