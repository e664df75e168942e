/**
 * The dashboard page of the local identity provider (`GET /`): every user with their memberships
 * ("change role"), live sessions ("revoke this session"), "sign in as … (impersonate)" (arms an
 * impersonation for their next sign-in) and a "delete user" button, plus the
 * webhook endpoint and the last deliveries, and the security events the auth worker sent. Forms
 * only, no scripts; every dynamic value goes through `escapeHtml`, and every form carries the
 * server's form token.
 */
import { escapeHtml, layout } from "./pages.ts";
import { renderSecurityEventsSection, type SecurityEventsSection } from "./security-events-section.ts";

export interface DashboardMembership {
  id: string;
  organizationId: string;
  organizationName: string;
  role: string;
}

export interface DashboardSession {
  id: string;
  organizationName: string | null;
  createdAt: string;
}

export interface DashboardUser {
  id: string;
  name: string;
  email: string;
  memberships: DashboardMembership[];
  sessions: DashboardSession[];
  /** The impersonation armed for this user's next sign-in, if any. */
  impersonation: { email: string; reason: string | null; organizationName: string | null } | null;
}

export interface DashboardDelivery {
  id: string;
  event: string;
  status: string;
  attempts: number;
  detail: string;
}

export interface DashboardPage {
  formToken: string;
  roles: readonly string[];
  users: DashboardUser[];
  webhookEndpoint: string | null;
  deliveries: DashboardDelivery[];
  securityEvents: SecurityEventsSection;
}

const EXTRA_STYLE = `
main,.site .bar{max-width:64rem}
.row{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin-top:.5rem}
.row form{margin:0;display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}
.muted,table{font-size:.875rem}
`;

function form(action: string, token: string, inner: string, label: string, cls = ""): string {
  return `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="token" value="${escapeHtml(token)}">${inner}<button type="submit"${cls ? ` class="${cls}"` : ""}>${label}</button></form>`;
}

function membershipRow(page: DashboardPage, m: DashboardMembership): string {
  const roles = page.roles.includes(m.role) ? page.roles : [...page.roles, m.role];
  const options = roles
    .map((r) => `<option value="${escapeHtml(r)}"${r === m.role ? " selected" : ""}>${escapeHtml(r)}</option>`)
    .join("");
  const select = `<select name="role" aria-label="Role in ${escapeHtml(m.organizationName)}">${options}</select>`;
  return `<div class="row" data-membership="${escapeHtml(m.id)}"><span>${escapeHtml(m.organizationName)}</span>
${form(`/dashboard/memberships/${encodeURIComponent(m.id)}/role`, page.formToken, select, "Change role", "secondary")}</div>`;
}

function sessionRow(page: DashboardPage, s: DashboardSession): string {
  const where = s.organizationName === null ? "no organization" : s.organizationName;
  return `<div class="row" data-session="${escapeHtml(s.id)}"><span class="muted">${escapeHtml(s.id)} · ${escapeHtml(where)} · since ${escapeHtml(s.createdAt)}</span>
${form(`/dashboard/sessions/${encodeURIComponent(s.id)}/revoke`, page.formToken, "", "Revoke this session", "secondary")}</div>`;
}

/** Who the impersonate form proposes as the operator; any email may be typed instead. */
const DEFAULT_IMPERSONATOR = "admin@local-idp.test";

function impersonationRow(page: DashboardPage, u: DashboardUser): string {
  const action = `/dashboard/users/${encodeURIComponent(u.id)}/impersonate`;
  const orgs = u.memberships
    .map((m) => `<option value="${escapeHtml(m.organizationId)}">${escapeHtml(m.organizationName)}</option>`)
    .join("");
  const select = orgs
    ? `<select name="organization_id" aria-label="Organization of the impersonation"><option value="">any organization</option>${orgs}</select>`
    : "";
  const inner = `<input type="email" name="impersonator_email" value="${DEFAULT_IMPERSONATOR}" aria-label="Impersonator email" required>
<input type="text" name="reason" placeholder="reason (optional)" aria-label="Reason" maxlength="500">${select}`;
  const armed = u.impersonation
    ? `<div class="row" data-impersonation="${escapeHtml(u.id)}"><span class="muted">Impersonation armed: the next sign-in of ${escapeHtml(u.name)}${
        u.impersonation.organizationName === null ? "" : ` into ${escapeHtml(u.impersonation.organizationName)}`
      } is by ${escapeHtml(u.impersonation.email)}${u.impersonation.reason === null ? "" : ` (${escapeHtml(u.impersonation.reason)})`}. Sign in to the app as them now.</span>
${form(`/dashboard/users/${encodeURIComponent(u.id)}/impersonation/cancel`, page.formToken, "", "Cancel impersonation", "secondary")}</div>`
    : "";
  return `<div class="row">${form(action, page.formToken, inner, `Sign in as ${escapeHtml(u.name)} (impersonate)`, "secondary")}</div>${armed}`;
}

function userItem(page: DashboardPage, u: DashboardUser): string {
  const memberships = u.memberships.length
    ? u.memberships.map((m) => membershipRow(page, m)).join("\n")
    : `<p class="muted">No organization.</p>`;
  const sessions = u.sessions.length
    ? u.sessions.map((s) => sessionRow(page, s)).join("\n")
    : `<p class="muted">No live session.</p>`;
  return `<li data-user="${escapeHtml(u.id)}"><div class="who"><div><strong>${escapeHtml(u.name)}</strong>
<small>${escapeHtml(u.email)} · ${escapeHtml(u.id)}</small></div></div>
${memberships}
${sessions}
${impersonationRow(page, u)}
<div class="row">${form(`/dashboard/users/${encodeURIComponent(u.id)}/delete`, page.formToken, "", "Delete user", "danger")}</div></li>`;
}

export function renderDashboard(page: DashboardPage): string {
  const users = page.users.length
    ? `<ul class="cards">${page.users.map((u) => userItem(page, u)).join("\n")}</ul>`
    : `<p class="msg">No users (reset with POST /__local/reset).</p>`;
  const endpoint =
    page.webhookEndpoint === null
      ? "Webhooks are off: start with LOCAL_IDP_WEBHOOK_URL and LOCAL_IDP_WEBHOOK_SECRET to deliver these changes."
      : `Changes are delivered as signed webhooks to ${page.webhookEndpoint}.`;
  const rows = page.deliveries
    .map(
      (d) =>
        `<tr><td>${escapeHtml(d.event)}</td><td>${escapeHtml(d.status)}</td><td>${d.attempts}</td><td>${escapeHtml(d.detail)}</td></tr>`,
    )
    .join("");
  const deliveries = rows
    ? `<table><tr><th>event</th><th>status</th><th>attempts</th><th>last answer</th></tr>${rows}</table>`
    : `<p class="muted">No deliveries yet.</p>`;
  return layout(
    "Directory",
    `<h1>Directory</h1><p class="sub">${escapeHtml(endpoint)}</p>
${users}
<h2>Recent webhook deliveries</h2>
${deliveries}
${renderSecurityEventsSection(page.securityEvents)}`,
    EXTRA_STYLE,
    "/",
  );
}
