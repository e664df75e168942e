/**
 * The dashboard's endpoints: `GET /` (the page) and its form posts (including "sign in as …
 * (impersonate)", which arms an impersonation), which run the same actions as
 * the `/__local/` JSON controls and redirect back (303). Every post must carry the server's form
 * token (constant-time check), so another site cannot drive this provider through a browser.
 */
import {
  armImpersonation,
  cancelImpersonation,
  changeRole,
  deleteUser,
  ROLES,
  revokeProviderSession,
} from "./actions.ts";
import type { IdpContext, IdpRequest, Route } from "./context.ts";
import { renderDashboard } from "./dashboard-page.ts";
import { LocalIdpError } from "./errors.ts";
import { field, html, type Reply } from "./http.ts";
import { sectionEvents } from "./security-events-section.ts";
import { secretEquals } from "./signer.ts";

function showDashboard(ctx: IdpContext): Reply {
  const orgName = (id: string | null) => (id === null ? null : (ctx.store.organization(id)?.name ?? id));
  const users = ctx.store.users().map((u) => ({
    id: u.id,
    name: `${u.firstName} ${u.lastName}`,
    email: u.email,
    memberships: ctx.store.memberships({ userId: u.id }).map((m) => ({
      id: m.id,
      organizationId: m.organizationId,
      organizationName: orgName(m.organizationId) ?? m.organizationId,
      role: m.role,
    })),
    sessions: ctx.store.liveSessions(u.id).map((s) => ({
      id: s.id,
      organizationName: orgName(s.organizationId),
      createdAt: new Date(s.createdAt).toISOString(),
    })),
    impersonation: impersonationOf(ctx, u.id, orgName),
  }));
  const deliveries = ctx.webhooks
    .deliveries()
    .slice(-20)
    .reverse()
    .map((d) => ({
      id: d.id,
      event: d.event,
      status: d.status,
      attempts: d.attempts,
      detail: d.error ?? (d.responseStatus === null ? "" : `HTTP ${d.responseStatus}`),
    }));
  return html(
    200,
    renderDashboard({
      formToken: ctx.formToken,
      roles: ROLES,
      users,
      webhookEndpoint: ctx.webhooks.endpoint,
      deliveries,
      securityEvents: {
        receiver: ctx.securityEvents.enabled ? `${ctx.config.issuer}/__local/security-events` : null,
        events: sectionEvents(ctx.securityEvents.list(), (id) => {
          const user = ctx.store.user(id);
          return user ? `${user.firstName} ${user.lastName}` : null;
        }),
      },
    }),
  );
}

function impersonationOf(ctx: IdpContext, userId: string, orgName: (id: string | null) => string | null) {
  const pending = ctx.store.pendingImpersonation(userId);
  if (!pending) return null;
  return { ...pending.impersonator, organizationName: orgName(pending.organizationId) };
}

const back = (): Reply => ({ status: 303, headers: { location: "/", "cache-control": "no-store" }, body: "" });

/** A form post: checks the token, then runs `action` with the body. */
function post(action: (ctx: IdpContext, req: IdpRequest, body: Record<string, unknown>) => unknown) {
  return async (ctx: IdpContext, req: IdpRequest): Promise<Reply> => {
    const body = await req.body();
    if (!secretEquals(field(body, "token") ?? "", ctx.formToken)) {
      throw new LocalIdpError("invalid_request", 403, "This form is out of date: reload the page and try again.");
    }
    action(ctx, req, body);
    return back();
  };
}

const page = (method: Route["method"], pattern: RegExp, handler: Route["handler"]): Route => ({
  method,
  pattern,
  endpoint: null,
  page: true,
  handler,
});

export const DASHBOARD_ROUTES: Route[] = [
  page("GET", /^\/$/, showDashboard),
  page(
    "POST",
    /^\/dashboard\/sessions\/([^/]+)\/revoke$/,
    post((ctx, req) => revokeProviderSession(ctx, req.params[0] ?? "")),
  ),
  page(
    "POST",
    /^\/dashboard\/memberships\/([^/]+)\/role$/,
    post((ctx, req, body) => changeRole(ctx, req.params[0] ?? "", field(body, "role"))),
  ),
  page(
    "POST",
    /^\/dashboard\/users\/([^/]+)\/impersonate$/,
    post((ctx, req, body) =>
      armImpersonation(ctx, {
        userId: req.params[0] ?? "",
        email: field(body, "impersonator_email"),
        reason: field(body, "reason"),
        organizationId: field(body, "organization_id"),
      }),
    ),
  ),
  page(
    "POST",
    /^\/dashboard\/users\/([^/]+)\/impersonation\/cancel$/,
    post((ctx, req) => cancelImpersonation(ctx, req.params[0] ?? "")),
  ),
  page(
    "POST",
    /^\/dashboard\/users\/([^/]+)\/delete$/,
    post((ctx, req) => deleteUser(ctx, req.params[0] ?? "")),
  ),
];
