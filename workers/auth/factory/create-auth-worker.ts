/**
 * @module
 * `createAuthWorker(options)`: the whole auth worker (hosted login, sessions,
 * account pages and their live script, admin, provider webhooks, the live
 * channel, rate limits) as one fetch handler, and a `connect` handler that
 * refuses raw connections. The host module re-exports the
 * Durable Object classes and the RPC entrypoint beside it:
 *
 * ```ts
 * import { createAuthWorker } from "gatehouse-workers/worker";
 * export default createAuthWorker({ cookie: { domain: "example.com" } });
 * export { AuthService, RateLimiterDO, UserSessions } from "gatehouse-workers/worker";
 * ```
 */

import { UserSessions } from "../../../durable-objects/user-sessions";
import { type AuthWorkerEnv, authApplication, authSecurityHeaders } from "../app";
import { authConfigVerdict, configureAuthWorker } from "../app/configured";
import type { AuthWorkerOptions } from "../app/options";
import { unavailableResponse } from "../config";
import { IdentityClientToken } from "../identity/identity-client";
import { refuseConnection } from "./connect";

/**
 * The handlers `createAuthWorker` returns (a Workers `ExportedHandler`). Its env is whatever the
 * wrangler config binds (the names are the options'), so it fits `ExportedHandler<YourEnv>`.
 * `connect` closes a raw connection (an HTTP `CONNECT`, a `binding.connect()`) unanswered.
 */
export interface AuthWorkerHandler {
  fetch(request: Request, env: object, ctx: ExecutionContext): Promise<Response>;
  connect(socket: Socket, env: object, ctx: ExecutionContext): Promise<void>;
}

/**
 * Builds the auth worker. Options are checked now (a mistake throws at deploy, naming the
 * option); env is checked on the first request (a weak or placeholder secret, an `http:`
 * redirect URL off loopback: every request answers a generic 503 and the log names the variable).
 */
export function createAuthWorker(options: AuthWorkerOptions = {}): AuthWorkerHandler {
  configureAuthWorker(options);
  // The session objects refresh the provider's tokens with this worker's identity client.
  UserSessions.refreshTokens = (env) => {
    const client = authApplication(env as unknown as AuthWorkerEnv).container.resolve(IdentityClientToken);
    return client.refreshTokens ? (request) => client.refreshTokens!(request) : null;
  };
  return {
    async fetch(request, env, ctx) {
      if (!authConfigVerdict(env).ok) return authSecurityHeaders.applyTo(request, unavailableResponse(request));
      const app = authApplication(env as AuthWorkerEnv);
      return app.fetch(request, app.env, ctx);
    },
    connect: (socket) => refuseConnection(socket),
  };
}
