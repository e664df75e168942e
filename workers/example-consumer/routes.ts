/**
 * @module
 * The example consumer's routes, as a `ServiceProvider`: a public home page,
 * the signed-in dashboard (`/dashboard`, `/org/<slug>/dashboard`), an
 * admin-only page (`/org/<slug>/admin`, `RoleMiddleware("admin")`), JSON
 * `/api/me`, the metered `/api/quota` (quota.ts), the live counter (`/live`,
 * its script and socket: live-counter.ts) and `POST /logout`
 * (`ServiceLogoutHandler`: same-origin only, revoked over RPC). Every guarded route
 * resolves its user through the auth worker's `AuthService` binding; this
 * worker never sees the session secret or store. Its 403, 404, 429 and 5xx
 * answer browsers a page with a way out (error-pages.ts), API clients JSON.
 */
import { type Application, ServiceProvider, Token, toHono } from "gatehouse-workers";
import { OrgResolver, RoleMiddleware, redirectUrlProblem } from "gatehouse-workers/auth";
import {
  type AppUser,
  AuthServiceClient,
  AuthServiceError,
  currentOrganizationSlug,
  currentUser,
  DEFAULT_TICKET_PATH,
  loginUrlFor,
  NoImpersonationMiddleware,
  type OrganizationMembership,
  RecentAuthMiddleware,
  ServiceAuthMiddleware,
  ServiceLogoutHandler,
} from "gatehouse-workers/client";
// Request-only helpers of the auth module: no session store, secret or identity SDK
// comes with them (bench-bundle checks that this worker bundles none of those).
import type { ConsumerEnv } from "./env";
import {
  forbiddenPage,
  notFoundPage,
  outagePages,
  roleRefusalPages,
  unavailablePage,
  withErrorPages,
} from "./error-pages";
import { LIVE_COUNTER_NAME } from "./live-counter";
import { LIVE_COUNTER_SCRIPT } from "./live-script";
import { adminPage, dashboardPage, homePage, livePage, settingsPage } from "./pages";
import { registerQuotaRoute } from "./quota";

export class ExampleConsumerProvider extends ServiceProvider<ConsumerEnv> {
  register(app: Application<ConsumerEnv>): void {
    const env = app.env;
    app.container.singleton(AuthServiceClient, () => new AuthServiceClient(env.AUTH));
    app.container.singleton(PageGuard, (c) => guard(c.resolve(AuthServiceClient), env, false));
    app.container.singleton(ApiGuard, (c) => guard(c.resolve(AuthServiceClient), env, true));
  }

  override boot(app: Application<ConsumerEnv>): void {
    const c = app.container;
    // Fail closed without a usable login URL (missing, not a URL, or http: off loopback): every
    // request answers a generic 503 and the log names the variable, once.
    const problem = app.env.AUTH_LOGIN_URL ? redirectUrlProblem(app.env.AUTH_LOGIN_URL) : "required";
    if (problem) {
      console.error(`example-consumer: configuration refused: AUTH_LOGIN_URL (${problem}); every request answers 503`);
      app.use({ handle: (req) => Promise.resolve(unavailablePage(req, 503, "service_unavailable")) });
      return;
    }
    // Built on first use, so a missing binding or login URL answers a JSON error instead of failing every request at startup.
    // A guard's own outage answer (the auth worker down, failing or slow) is a page for browsers.
    const pages = withErrorPages({ handle: (req, next) => c.resolve(PageGuard).handle(req, next) }, outagePages());
    const api = withErrorPages(
      { handle: (req, next) => c.resolve(ApiGuard).handle(req, next) },
      outagePages({ api: true }),
    );
    const links = (request: Request) => ({
      login: loginUrlFor(app.env.AUTH_LOGIN_URL, new URL("/dashboard", request.url)),
    });
    // No dead ends: an unknown path answers a page with a way home (JSON `not_found` for API clients).
    app.hono.notFound((ctx) => notFoundPage(ctx.req.raw));

    // Sign-out on this origin: a same-origin POST whose session is revoked over RPC (never a GET).
    app.hono.post("/logout", (ctx) => new ServiceLogoutHandler(c.resolve(AuthServiceClient)).handle(ctx.req.raw));

    app.hono.get("/", async (ctx) => {
      let user: AppUser | null = null;
      let notice: string | undefined;
      try {
        user = await c.resolve(AuthServiceClient).resolveUser(ctx.req.raw);
      } catch (err) {
        // The public page stays up when the auth worker is down; it just cannot greet anyone.
        if (!(err instanceof AuthServiceError)) throw err;
        notice = "Sign-in is unavailable right now.";
      }
      const res = homePage(user, links(ctx.req.raw), notice);
      res.headers.set("Cache-Control", "private, no-store");
      return res;
    });

    app.hono.use("/dashboard", toHono(pages));
    // A sensitive page: a sign-in of the last five minutes (else a step-up at the provider), and
    // never an operator signed in as someone else.
    app.hono.use("/settings", toHono(pages));
    app.hono.use("/settings", toHono(new NoImpersonationMiddleware()));
    app.hono.use("/settings", toHono(new RecentAuthMiddleware(300, { loginUrl: app.env.AUTH_LOGIN_URL })));
    app.hono.get("/settings", (ctx) => settingsPage(currentUser(ctx.req.raw)!));
    // The live counter: a guarded page (with the session's live channel, so a revocation also takes
    // the tab to the signed-out page), its same-origin script, and its socket, which the counter's
    // Durable Object accepts only with a session (SessionSockets resolves it: 401 without).
    app.hono.use("/live", toHono(pages));
    app.hono.get("/live", (ctx) => livePage(currentUser(ctx.req.raw)!));
    app.hono.get("/live/app.js", () => liveScript());
    app.hono.get("/live/socket", (ctx) => liveSocket(ctx.req.raw, app.env));
    // Where a tab fetches a fresh live ticket (the page guard answers it).
    app.hono.use(DEFAULT_TICKET_PATH, toHono(pages));
    app.hono.use("/org/*", toHono(pages));
    app.hono.use("/api/*", toHono(api));
    registerQuotaRoute(app); // after the /api/* guard: its key is the signed-in user
    // Its 403 is this app's page: the person's other organizations, a new sign-in, a sign-out.
    app.hono.use(
      "/org/:slug/admin",
      toHono(
        withErrorPages(
          new RoleMiddleware("admin"),
          roleRefusalPages((request) => links(request).login),
        ),
      ),
    );

    const dashboard = (request: Request) => {
      const user = currentUser(request)!;
      const slug = currentOrganizationSlug(request);
      const organization = currentMembership(user, slug);
      if (slug && !organization) return forbiddenPage(request, user, slug, "not_member", links(request).login);
      return dashboardPage(user, organization);
    };
    app.hono.get("/dashboard", (ctx) => dashboard(ctx.req.raw));
    app.hono.get("/org/:slug/dashboard", (ctx) =>
      orgMatches(ctx.req.raw, ctx.req.param("slug")) ? dashboard(ctx.req.raw) : unknownOrganization(ctx.req.raw),
    );
    app.hono.get("/org/:slug/admin", (ctx) =>
      orgMatches(ctx.req.raw, ctx.req.param("slug"))
        ? adminPage(currentUser(ctx.req.raw)!, ctx.req.param("slug"))
        : unknownOrganization(ctx.req.raw),
    );

    app.hono.get("/api/me", (ctx) => {
      const user = currentUser(ctx.req.raw)!;
      const membership = currentMembership(user, currentOrganizationSlug(ctx.req.raw));
      return ctx.json({
        user,
        organization: membership
          ? { id: membership.organizationId, slug: membership.organizationSlug, role: membership.role }
          : null,
      });
    });
  }
}

/** Page routes redirect to the login URL; API routes (`api: true`) answer 401 JSON. */
const PageGuard = new Token<ServiceAuthMiddleware>("ExampleConsumer.PageGuard");
const ApiGuard = new Token<ServiceAuthMiddleware>("ExampleConsumer.ApiGuard");

function guard(client: AuthServiceClient, env: ConsumerEnv, api: boolean): ServiceAuthMiddleware {
  return new ServiceAuthMiddleware(client, {
    loginUrl: env.AUTH_LOGIN_URL,
    orgResolver: new OrgResolver(["path-prefix"]),
    api,
    // Pages carry the session's live channel: signed out live, reloaded on a role change.
    ...(api ? {} : { live: true }),
  });
}

/** The organization of the path (`/org/<slug>/…`) or else of the session, if the user is a member of it. */
function currentMembership(user: AppUser, slug: string | null): OrganizationMembership | null {
  const found = slug
    ? user.memberships.find((m) => m.organizationSlug === slug)
    : user.memberships.find((m) => m.organizationId === user.organizationId);
  return found ?? null;
}

/** The path's slug is one `OrgResolver` accepted (so RoleMiddleware judged this organization, not the session's). */
function orgMatches(request: Request, slug: string): boolean {
  return currentOrganizationSlug(request) === slug;
}

/** `/live/app.js`: the page's script (live-script.ts), revalidated on each load. */
function liveScript(): Response {
  return new Response(LIVE_COUNTER_SCRIPT, {
    headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache" },
  });
}

/** `/live/socket`: to the one counter object; 503 when this deployment does not bind it. */
function liveSocket(request: Request, env: ConsumerEnv): Response | Promise<Response> {
  const counter = env.LIVE_COUNTER;
  if (!counter) return unavailablePage(request, 503, "service_unavailable", { api: true });
  return counter.getByName(LIVE_COUNTER_NAME).fetch(request);
}

function unknownOrganization(request: Request): Response {
  return notFoundPage(request, "No such organization.");
}
