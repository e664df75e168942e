/**
 * @module
 * Composition of the deployed auth worker: `AuthServiceProvider`, the health
 * route, the home page, the live channel, the admin endpoint and the
 * account pages. One `Application` per `env` object, shared by the fetch
 * handler and the `AuthService` RPC entrypoint.
 */

import { acceptsHtml } from "../../../client-sdk/auth-context";
import { Application } from "../../../client-sdk/core/application";
import { jsonError } from "../../../client-sdk/core/errors";
import { SecurityHeadersMiddleware } from "../../../client-sdk/core/security-headers";
import { registerAccountRoutes } from "../account";
import { registerAdminRoutes } from "../admin";
import { registerOrganizationConsole } from "../admin/organization-console";
import { registerLivePages } from "../live/pages";
import { registerLiveChannel } from "../live/route";
import { errorPage } from "../pages";
import { type AuthEnv, AuthServiceProvider, type AuthServiceProviderOptions } from "../provider";
import { registerSsfReceiver } from "../ssf/receiver";
import { registerSsfTransmitter } from "../ssf/transmitter";
import { registerIdentityWebhook } from "../webhooks";
import { registerApiRoutes } from "./api";
import { authEnvOf, authWorkerOptions } from "./configured";
import { authOnError } from "./errors";
import { registerHomePage } from "./home";
import type { ResolvedAuthWorkerOptions } from "./options";

export interface AuthWorkerEnv extends AuthEnv {
  SESSIONS: KVNamespace;
  ADMIN_API_TOKEN?: string;
  /** Organization ids whose admins may use the admin console (`/admin`). */
  ADMIN_CONSOLE_ORGANIZATIONS?: string;
}

const apps = new WeakMap<object, Application<AuthWorkerEnv>>();

/**
 * nosniff, Referrer-Policy, no framing, a CSP on pages without their own, HSTS over https: on
 * every answer. It is the first middleware, so nothing answers past it; an answer built in front
 * of the application goes through `authSecurityHeaders.applyTo(request, response)`.
 */
export const authSecurityHeaders = new SecurityHeadersMiddleware();

/**
 * The auth worker's application for this env, built once per env object with the options
 * `createAuthWorker` recorded (defaults without it). `env` may use the configured binding
 * names; the application sees them under the default ones (`authEnvOf`).
 */
export function authApplication(rawEnv: AuthWorkerEnv): Application<AuthWorkerEnv> {
  const env = authEnvOf(rawEnv);
  let app = apps.get(env);
  if (!app) {
    const options = authWorkerOptions();
    const { routes } = options;
    const built = Application.create(env, {
      middleware: [authSecurityHeaders],
      providers: [new AuthServiceProvider<AuthWorkerEnv>(providerOptions(options))],
    });
    built.hono.get("/health", (c) => c.json({ ok: true, service: "gatehouse-auth" }));
    if (routes.live) {
      // Tabs of the apps in AUTH_RETURN_ORIGINS may join too (with a ticket when the cookie cannot come).
      registerLiveChannel(built, env.USER_SESSIONS);
      registerLivePages(built);
    }
    if (routes.admin) registerAdminRoutes(built);
    if (routes.api) registerApiRoutes(built);
    // The organization console lives under /account/, behind the account routes' guards.
    if (routes.account && registerAccountRoutes(built)) registerOrganizationConsole(built);
    if (routes.webhooks) registerIdentityWebhook(built);
    if (options.ssf) registerSsfTransmitter(built, options.ssf);
    // Shared signals in (issue 32): only with `ssf.transmitters` configured.
    registerSsfReceiver(built, options.ssfTransmitters);
    if (routes.home) registerHomePage(built);
    // An unknown path: a page with a way home for browsers, `not_found` JSON for API clients.
    // A browser's navigation gets a page with a way home; every other client the JSON it always got.
    built.hono.notFound((c) =>
      acceptsHtml(c.req.raw)
        ? errorPage(c.req.raw, 404, "not_found", "There is no page at this address.")
        : jsonError(404, "not_found", "There is no page at this address."),
    );
    built.hono.onError(authOnError);
    apps.set(env, built);
    app = built;
  }
  return app;
}

function providerOptions(options: ResolvedAuthWorkerOptions): AuthServiceProviderOptions {
  const { cookie, idleTimeout, absoluteTimeout, revocation, hooks, rateLimits } = options;
  const { sessionPolicy, organizationPolicies, timeline, location } = options;
  return {
    ...(rateLimits ? { rateLimits } : {}),
    ...(options.redirectUrl ? { redirectUrl: options.redirectUrl } : {}),
    ...(options.returnOrigins ? { returnOrigins: options.returnOrigins } : {}),
    ...(options.identityClient ? { identityClient: options.identityClient } : {}),
    ...(options.recentAuthMaxAge !== undefined ? { recentAuthMaxAge: options.recentAuthMaxAge } : {}),
    session: {
      ...(options.impersonationTimeout !== undefined ? { impersonationTimeout: options.impersonationTimeout } : {}),
      ...(cookie ? { cookie: { ...cookie } } : {}),
      ...(idleTimeout !== undefined ? { idleTimeout } : {}),
      ...(absoluteTimeout !== undefined ? { absoluteTimeout } : {}),
      ...(revocation ? { revocation } : {}),
      ...(hooks ? { hooks } : {}),
      ...(sessionPolicy ? { sessionPolicy } : {}),
      ...(organizationPolicies ? { organizationPolicies } : {}),
      ...(timeline?.recordSignIns === false ? { timeline: false } : {}),
      ...(location ? { location } : {}),
      ...(options.deviceBinding ? { deviceBinding: options.deviceBinding } : {}),
      ...(options.deviceBindingSite ? { deviceBindingSite: options.deviceBindingSite } : {}),
    },
  };
}
