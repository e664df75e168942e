/**
 * @module
 * The deployed auth worker's entry: the fetch handler, the `AuthService`
 * RPC entrypoint, and the Durable Object classes wrangler.toml binds.
 * It holds no logic of its own; `app/` composes the modules.
 */
import { type AuthWorkerEnv, authApplication, authSecurityHeaders } from "./app";
import { configVerdict, unavailableResponse } from "./config";

export { RateLimiterDO } from "../../durable-objects/rate-limiter";
export { UserSessions } from "../../durable-objects/user-sessions";
export type { AuthWorkerEnv } from "./app";
export { AuthService, type RpcSession } from "./rpc/auth-service";

export default {
  fetch(request, env, ctx) {
    // Fail closed on a refused configuration (weak secret, http: redirect off loopback): generic 503.
    if (!configVerdict(env).ok) return authSecurityHeaders.applyTo(request, unavailableResponse(request));
    return authApplication(env).fetch(request, env, ctx);
  },
} satisfies ExportedHandler<AuthWorkerEnv>;
