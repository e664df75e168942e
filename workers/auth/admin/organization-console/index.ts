/**
 * @module
 * The organization console: an admin of an organization sees its session
 * policy and kill switch and changes them (`/account/organizations`, `/account/organizations/:id`,
 * POSTs under it). Behind the account guards (session, CSRF), then: the organization must be one
 * of the person's with role `admin`; an impersonated session is refused (403
 * `impersonation_forbidden`); and a sign-in older than `recentAuthMaxAge` (default 5 minutes) goes
 * through a forced re-authentication first (`RecentAuthMiddleware`). Exists only with the
 * organizations' objects bound. The kill switch's actor on every member's timeline is this person.
 * Mounted beside the account routes (its pages are among the person's own), behind their guards.
 * The policy form is the one place here that names a policy's fields (its inputs and its summary);
 * what it reads is checked whole by `session/policy.ts` (`validatePolicy`).
 */
import type { MiddlewareHandler } from "hono";
import { NoImpersonationMiddleware, RecentAuthMiddleware } from "../../../../client-sdk/auth-context/recent-auth";
import type { Application } from "../../../../client-sdk/core/application";
import { toHono } from "../../../../client-sdk/core/middleware";
import type { SessionPolicy } from "../../../../client-sdk/protocol/policy";
import { withContentSecurityPolicy } from "../../account/csp";
import { isOrganizationId } from "../../ids";
import { currentSession } from "../../middleware/context";
import { csrfToken } from "../../middleware/csrf";
import { authErrorPage, errorPage, page, wantsJson } from "../../pages";
import { siteHeader } from "../../pages/site-header";
import { AuthConfigToken, publicOrigin } from "../../provider";
import { validatePolicy } from "../../session/policy";
import { SessionManager } from "../../session/session-manager";
import type { AppUser } from "../../types";
import { type Membership, ORGANIZATIONS_PATH, organizationBody, organizationsBody, policyFormValues } from "./views";

export function registerOrganizationConsole<E extends object>(app: Application<E>): void {
  const sessions = () => app.container.resolve(SessionManager);
  let guards: readonly MiddlewareHandler[] | undefined;
  const guard = () =>
    (guards ??= [
      toHono(new NoImpersonationMiddleware()),
      toHono(new RecentAuthMiddleware(app.container.resolve(AuthConfigToken).recentAuthMaxAge)),
    ]);

  // Without the organizations' objects there is nothing to show (404, like any unknown path).
  app.hono.use(`${ORGANIZATIONS_PATH}/*`, async (c, next) => {
    if (!sessions().hasOrganizations) return errorPage(c.req.raw, 404, "not_found", "There is no such page.");
    await next();
  });
  app.hono.use(ORGANIZATIONS_PATH, async (c, next) => {
    if (!sessions().hasOrganizations) return errorPage(c.req.raw, 404, "not_found", "There is no such page.");
    await next();
  });
  for (const path of [ORGANIZATIONS_PATH, `${ORGANIZATIONS_PATH}/*`]) {
    app.hono.use(path, (c, next) => guard()[0]!(c, next));
    app.hono.use(path, (c, next) => guard()[1]!(c, next));
  }

  app.hono.get(ORGANIZATIONS_PATH, (c) => {
    const me = currentSession(c.req.raw)!;
    const body = organizationsBody(adminMemberships(me.user));
    const header = siteHeader({ user: me.user, csrf: csrfToken(c.req.raw) });
    return withContentSecurityPolicy(
      page("Your organizations", body, 200, undefined, header),
      publicOrigin(app.container),
    );
  });

  app.hono.get(`${ORGANIZATIONS_PATH}/:organizationId`, async (c) => {
    const request = c.req.raw;
    const membership = adminOf(request, c.req.param("organizationId"));
    if (membership instanceof Response) return membership;
    try {
      const manager = sessions();
      const [policy, epoch] = await Promise.all([
        manager.organizationPolicy(membership.organizationId),
        manager.organizationEpoch(membership.organizationId),
      ]);
      if (wantsJson(request)) return Response.json({ organizationId: membership.organizationId, ...policy, epoch });
      const notice = new URL(request.url).searchParams.get("done");
      const csrf = csrfToken(request);
      return withContentSecurityPolicy(
        page(
          `Organization ${membership.organizationSlug}`,
          organizationBody(membership, policy, epoch, csrf, notice),
          200,
          undefined,
          siteHeader({ user: currentSession(request)!.user, csrf }),
        ),
        publicOrigin(app.container),
      );
    } catch (err) {
      return authErrorPage(request, err);
    }
  });

  type Run = (
    manager: SessionManager,
    organizationId: string,
    form: FormData,
    request: Request,
  ) => Promise<string | Response>;
  const action = (suffix: string, run: Run) =>
    app.hono.post(`${ORGANIZATIONS_PATH}/:organizationId${suffix}`, async (c) => {
      const request = c.req.raw;
      const membership = adminOf(request, c.req.param("organizationId"));
      if (membership instanceof Response) return membership;
      try {
        const form = await request.formData().catch(() => new FormData());
        const done = await run(sessions(), membership.organizationId, form, request);
        if (done instanceof Response) return done;
        if (wantsJson(request)) return Response.json({ organizationId: membership.organizationId, done });
        return new Response(null, {
          status: 303,
          headers: { Location: `${ORGANIZATIONS_PATH}/${encodeURIComponent(membership.organizationId)}?done=${done}` },
        });
      } catch (err) {
        return authErrorPage(request, err);
      }
    });

  action("/policy", async (manager, organizationId, form, request) => {
    let policy: SessionPolicy;
    try {
      policy = validatePolicy(policyFormValues(form), "policy");
    } catch (err) {
      return errorPage(request, 400, "invalid_policy", (err as Error).message);
    }
    await manager.setOrganizationPolicy(organizationId, policy);
    return "policy";
  });
  action("/policy/clear", async (manager, organizationId) => {
    await manager.setOrganizationPolicy(organizationId, null);
    return "policy";
  });
  action("/kill-switch", async (manager, organizationId, _form, request) => {
    const me = currentSession(request)!.user;
    await manager.endOrganizationSessions(organizationId, { kind: "kill_switch", label: me.email.slice(0, 64) });
    return "kill-switch";
  });
  action("/kill-switch/lift", async (manager, organizationId) => {
    await manager.liftOrganizationSessions(organizationId);
    return "lifted";
  });
}

function adminMemberships(user: AppUser): Membership[] {
  return user.memberships.filter((m) => m.role === "admin");
}

/** The person's admin membership of the organization in the path, or the refusal. */
function adminOf(request: Request, organizationId: string): Membership | Response {
  if (!isOrganizationId(organizationId)) {
    return errorPage(request, 400, "invalid_organization_id", "The organization id is not valid.");
  }
  const me = currentSession(request)!;
  const membership = adminMemberships(me.user).find((m) => m.organizationId === organizationId);
  return membership ?? errorPage(request, 403, "forbidden", "Only an admin of this organization can do this.");
}
