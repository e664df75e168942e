/**
 * @module
 * `AuthServiceProvider` (spec): registers `SessionManager`, `KVSessionStore`
 * and the identity client (`IdentityClientToken`) in the container, and the
 * three auth routes on the application. Configuration comes from `env`
 * (SESSIONS, SESSION_SECRET, AUTH_REDIRECT_URL, IDENTITY_*) or options; a
 * missing value fails with an error naming it, never a silent default.
 */

import type { Context, MiddlewareHandler } from "hono";
import type { Application } from "../../client-sdk/core/application";
import { type Container, Token } from "../../client-sdk/core/container";
import { toHono } from "../../client-sdk/core/middleware";
import { ServiceProvider } from "../../client-sdk/core/provider";
import { waitUntilOf } from "../../client-sdk/core/wait-until";
import { DBSC_WELL_KNOWN_PATH } from "../../client-sdk/protocol/device-binding";
import type { OrganizationSessions } from "../../durable-objects/organization-sessions";
import type { UserSessions } from "../../durable-objects/user-sessions";
import { isLoopbackHost } from "./config/rules";
import { AuthError } from "./errors";
import { parseOrigins } from "./flow/return-to";
import { DefaultIdentityClient, type IdentityEnv } from "./identity/default-identity-client";
import type { FakeIdentityClient } from "./identity/fake-identity-client";
import { fakeIdentityClients, type IdentityClient, IdentityClientToken } from "./identity/identity-client";
import { type AuthRateLimits, AuthRateLimitsToken, type LimitsEnv, routeLimiterFor } from "./limits";
import { devHeaderLocation } from "./location";
import { CsrfMiddleware, csrfToken } from "./middleware/csrf";
import { DEVICE_BINDING_PATH, handleDeviceBindingPage } from "./routes/device-binding";
import { createLoginHandler, handleCallback, handleLogout } from "./routes/handlers";
import { isOwnLogoutNavigation, logoutConfirmPage } from "./routes/logout";
import type { SessionManagerOptions } from "./session/config";
import { DBSC_PATHS, deviceBoundSessionsWellKnown, wellKnownResponse } from "./session/device-binding";
import { KVSessionStore } from "./session/kv-session-store";
import { SessionManager } from "./session/session-manager";

export interface AuthEnv extends IdentityEnv, LimitsEnv {
  SESSIONS?: KVNamespace;
  /** Signs session cookies. At least 32 random characters. */
  SESSION_SECRET?: string;
  /** The previous secret during a rotation: still verifies, never signs. */
  SESSION_SECRET_PREVIOUS?: string;
  /** `auth.redirectUrl`: the registered callback URL (`https://auth.example.com/auth/callback`). */
  AUTH_REDIRECT_URL?: string;
  /** Comma-separated origins `return_to` may send people back to (consuming apps). */
  AUTH_RETURN_ORIGINS?: string;
  /** The per-user session objects (`UserSessions`). Enables revocation, the live channel and strict mode. */
  USER_SESSIONS?: DurableObjectNamespace<UserSessions>;
  /** The per-organization objects (`OrganizationSessions`): member index, kill switch, operator-set session policy. */
  ORGANIZATIONS?: DurableObjectNamespace<OrganizationSessions>;
  /** `1`: read the request's location from `X-Gatehouse-Dev-Location` (local development; refused off loopback). */
  GATEHOUSE_DEV_LOCATION_HEADER?: string;
  /** "strict" (default with USER_SESSIONS) or "eventual". */
  GATEHOUSE_REVOCATION?: string;
  /** Verifies the identity provider's webhooks (`POST /webhooks/identity`, `WorkOS-Signature`). */
  IDENTITY_WEBHOOK_SECRET?: string;
}

export interface AuthConfig {
  redirectUrl: string;
  /** Origins `return_to` may name besides the auth worker's own paths. */
  returnOrigins: string[];
  /** Seconds since the last sign-in within which sensitive pages are open (else a step-up first). */
  recentAuthMaxAge: number;
}

/** Default of `recentAuthMaxAge`: five minutes. */
export const DEFAULT_RECENT_AUTH_MAX_AGE = 300;

export const AuthConfigToken = new Token<AuthConfig>("AuthConfig");

/**
 * This worker's public origin: the one its callback URL (`auth.redirectUrl`) names. Every absolute
 * URL of ours and the "this site" of every origin check come from it, never from the request's
 * `Host`, which a client may set to anything.
 */
export function publicOrigin(container: Pick<Container, "resolve">): string {
  return new URL(container.resolve(AuthConfigToken).redirectUrl).origin;
}

export interface AuthServiceProviderOptions {
  /** `auth.redirectUrl`; default `env.AUTH_REDIRECT_URL`. */
  redirectUrl?: string;
  /** Default `env.AUTH_RETURN_ORIGINS`. */
  returnOrigins?: string[];
  /** The identity client; default `DefaultIdentityClient` over env's IDENTITY_* values. */
  identityClient?: IdentityClient | ((env: AuthEnv) => IdentityClient);
  session?: SessionManagerOptions;
  /** Limits of the auth route families (`false` turns one off); default `AUTH_RATE_LIMITS`. */
  rateLimits?: AuthRateLimits;
  /** Register the /auth routes. Default true. */
  routes?: boolean;
  /** Seconds since the last sign-in within which sensitive pages are open. Default 300. */
  recentAuthMaxAge?: number;
}

export class AuthServiceProvider<E extends AuthEnv = AuthEnv> extends ServiceProvider<E> {
  readonly #options: AuthServiceProviderOptions;

  constructor(options: AuthServiceProviderOptions = {}) {
    super();
    this.#options = options;
  }

  register(app: Application<E>): void {
    const env = app.env;
    const options = this.#options;
    // Read by every route limiter of the auth worker (these routes, admin, webhooks) when it boots.
    app.container.instance(AuthRateLimitsToken, options.rateLimits ?? {});
    app.container.singleton(AuthConfigToken, () => {
      const redirectUrl = options.redirectUrl ?? env.AUTH_REDIRECT_URL;
      if (!redirectUrl) throw missing("AUTH_REDIRECT_URL (auth.redirectUrl)");
      try {
        new URL(redirectUrl);
      } catch {
        throw new AuthError("config_missing", {
          status: 500,
          message: `auth.redirectUrl is not a URL: ${redirectUrl}`,
        });
      }
      let returnOrigins: string[];
      try {
        returnOrigins = options.returnOrigins ?? parseOrigins(env.AUTH_RETURN_ORIGINS);
      } catch (err) {
        throw new AuthError("config_missing", { status: 500, message: (err as Error).message });
      }
      return { redirectUrl, returnOrigins, recentAuthMaxAge: options.recentAuthMaxAge ?? DEFAULT_RECENT_AUTH_MAX_AGE };
    });
    app.container.singleton(SessionManager, (c) => {
      if (!env.SESSIONS) throw missing("the SESSIONS KV binding");
      if (!env.SESSION_SECRET) throw missing("SESSION_SECRET");
      const secrets = [env.SESSION_SECRET, ...(env.SESSION_SECRET_PREVIOUS ? [env.SESSION_SECRET_PREVIOUS] : [])];
      const secure = options.session?.cookie?.secure ?? !c.resolve(AuthConfigToken).redirectUrl.startsWith("http:");
      const mode = env.GATEHOUSE_REVOCATION;
      if (mode !== undefined && mode !== "strict" && mode !== "eventual") {
        throw new AuthError("config_missing", {
          status: 500,
          message: 'GATEHOUSE_REVOCATION must be "strict" or "eventual"',
        });
      }
      return new SessionManager(env.SESSIONS, secrets, {
        ...(env.USER_SESSIONS ? { userSessions: env.USER_SESSIONS } : {}),
        ...(env.ORGANIZATIONS ? { organizations: env.ORGANIZATIONS } : {}),
        ...(env.GATEHOUSE_DEV_LOCATION_HEADER === "1" ? { location: devHeaderLocation } : {}),
        ...(mode ? { revocation: mode } : {}),
        ...options.session,
        cookie: { ...options.session?.cookie, secure },
      });
    });
    app.container.singleton(KVSessionStore, (c) => c.resolve(SessionManager).store);
    app.container.singleton(IdentityClientToken, (c) => {
      const given = options.identityClient;
      const client = typeof given === "function" ? given(env) : (given ?? new DefaultIdentityClient(env));
      // It signs anyone in: only where nobody else can reach the callback. (A set, not `instanceof`:
      // a worker that never builds a FakeIdentityClient does not bundle it.)
      if (fakeIdentityClients.has(client) && (client as FakeIdentityClient).synthetic) {
        const { hostname } = new URL(c.resolve(AuthConfigToken).redirectUrl);
        if (!isLoopbackHost(hostname)) {
          throw new AuthError("config_missing", {
            status: 500,
            message:
              "FakeIdentityClient signs anyone in: use it only with a loopback redirect URL (or synthetic: false)",
          });
        }
      }
      return client;
    });
  }

  override boot(app: Application<E>): void {
    if (this.#options.routes === false) return;
    const c = app.container;
    // Rate limits first: Hono runs middleware in registration order.
    for (const [path, family] of [
      ["/auth/login", "login"],
      ["/auth/callback", "callback"],
    ] as const) {
      const limiter = routeLimiterFor(app, family);
      if (limiter) app.hono.use(path, limiter);
    }
    app.hono.get("/auth/login", (ctx) =>
      createLoginHandler(c.resolve(IdentityClientToken), c.resolve(AuthConfigToken).redirectUrl, {
        clock: c.resolve(SessionManager).config.clock,
        returnOrigins: c.resolve(AuthConfigToken).returnOrigins,
        sessionManager: c.resolve(SessionManager),
      })(ctx.req.raw),
    );
    app.hono.get("/auth/callback", (ctx) =>
      handleCallback(
        ctx.req.raw,
        c.resolve(SessionManager),
        c.resolve(IdentityClientToken),
        c.resolve(AuthConfigToken).redirectUrl,
        // Its login handler always signs: an unsigned flow can only be a browser's own making.
        { returnOrigins: c.resolve(AuthConfigToken).returnOrigins, requireSignedFlow: true },
      ),
    );
    const binding = this.#options.session?.deviceBinding;
    if (binding !== undefined && binding !== "off") registerDeviceBindingRoutes(app, () => c.resolve(AuthConfigToken));
    // Logout: CSRF tokens are issued on GET and required on POST. A GET signs out only when it is
    // the person's own navigation (fetch metadata); any other GET gets a confirm page that POSTs.
    let csrf: MiddlewareHandler | undefined;
    const csrfGuard = (): MiddlewareHandler => {
      csrf ??= toHono(
        new CsrfMiddleware(c.resolve(SessionManager), {
          origin: publicOrigin(c),
          allowedOrigins: c.resolve(AuthConfigToken).returnOrigins,
        }),
      );
      return csrf;
    };
    app.hono.use("/auth/logout", (ctx, next) => csrfGuard()(ctx, next));
    const logout = (ctx: Context) =>
      handleLogout(ctx.req.raw, c.resolve(SessionManager), "/", {
        identityClient: c.resolve(IdentityClientToken),
        waitUntil: waitUntilOf(ctx),
      });
    app.hono.get("/auth/logout", (ctx) =>
      isOwnLogoutNavigation(ctx.req.raw, publicOrigin(c), c.resolve(AuthConfigToken).returnOrigins)
        ? logout(ctx)
        : logoutConfirmPage(ctx.req.raw, csrfToken(ctx.req.raw)),
    );
    app.hono.post("/auth/logout", logout);
  }
}

/**
 * `POST /auth/dbsc/register` and `POST /auth/dbsc/refresh` (device binding on). No CSRF middleware:
 * neither route acts on a cookie alone. Registration binds only the key whose signature answers a
 * challenge this session was given at sign-in (a page of another site cannot sign it; at worst it
 * binds nothing), and refresh acts only on a proof by the key already bound, which a page cannot
 * produce (Chrome keeps the private key out of reach). The CSRF token would also be unavailable:
 * the browser sends these requests itself, without a body or our headers. Never cached.
 * And `GET /.well-known/device-bound-sessions` naming this worker's public origin (from
 * `auth.redirectUrl`, never the request's Host) as a registering origin: it counts only where the
 * site's apex is routed here (a site-wide session registered from `auth.<site>`), and is public,
 * cookie-free and cacheable.
 */
function registerDeviceBindingRoutes<E extends AuthEnv>(
  app: Application<E>,
  config: () => { returnOrigins: readonly string[] },
): void {
  // A refusal answers 503, never 429: Chrome deletes the DBSC session on any 4xx of its refresh.
  const limiter = routeLimiterFor(app, "dbsc", { transient: true });
  if (limiter) app.hono.use("/auth/dbsc/*", limiter);
  const sessions = () => app.container.resolve(SessionManager);
  app.hono.post(DBSC_PATHS.register, (ctx) => sessions().registerDevice(ctx.req.raw));
  app.hono.post(DBSC_PATHS.refresh, (ctx) => sessions().refreshDevice(ctx.req.raw));
  // The page a session whose role must bind waits on (a GET that changes nothing).
  app.hono.get(DEVICE_BINDING_PATH, (ctx) =>
    handleDeviceBindingPage(ctx.req.raw, sessions(), {
      clock: sessions().config.clock,
      returnOrigins: config().returnOrigins,
    }),
  );
  app.hono.get(DBSC_WELL_KNOWN_PATH, () =>
    wellKnownResponse(deviceBoundSessionsWellKnown({ registeringOrigins: [publicOrigin(app.container)] })),
  );
}

function missing(what: string): AuthError {
  return new AuthError("config_missing", { status: 500, message: `Gatehouse auth is missing ${what}` });
}
