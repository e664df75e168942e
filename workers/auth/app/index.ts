/**
 * @module
 * Composition of the deployed auth worker: `AuthServiceProvider`, the health
 * route, the home page, the live channel, the admin endpoint and the
 * account pages. One `Application` per `env` object, shared by the fetch
 * handler and the `AuthService` RPC entrypoint.
 */
import { Application, SecurityHeadersMiddleware } from "../../../client-sdk";
import { registerAccountRoutes } from "../account";
import { registerAdminRoutes } from "../admin/routes";
import { routeLiveChannel } from "../live/route";
import { type AuthEnv, AuthServiceProvider } from "../provider";
import { SessionManager } from "../session/session-manager";
import { registerIdentityWebhook } from "../webhooks";
import { registerApiRoutes } from "./api";
import { registerHomePage } from "./home";

export interface AuthWorkerEnv extends AuthEnv {
  SESSIONS: KVNamespace;
  ADMIN_API_TOKEN?: string;
}

const apps = new WeakMap<object, Application<AuthWorkerEnv>>();

/**
 * nosniff, Referrer-Policy, no framing, a CSP on pages without their own, HSTS over https: on
 * every answer. It is the first middleware, so nothing answers past it; an answer built in front
 * of the application goes through `authSecurityHeaders.applyTo(request, response)`.
 */
export const authSecurityHeaders = new SecurityHeadersMiddleware();

export function authApplication(env: AuthWorkerEnv): Application<AuthWorkerEnv> {
  let app = apps.get(env);
  if (!app) {
    app = Application.create(env, {
      middleware: [authSecurityHeaders],
      providers: [new AuthServiceProvider<AuthWorkerEnv>()],
    });
    app.hono.get("/health", (c) => c.json({ ok: true, service: "gatehouse-auth" }));
    app.hono.all("/parties/*", (c) =>
      routeLiveChannel(c.req.raw, env.USER_SESSIONS, app!.container.resolve(SessionManager)),
    );
    registerAdminRoutes(app);
    registerApiRoutes(app);
    registerAccountRoutes(app);
    registerIdentityWebhook(app);
    registerHomePage(app);
    apps.set(env, app);
  }
  return app;
}
