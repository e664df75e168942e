/**
 * @module
 * The example consumer's HTML: a layout and the three pages. Everything
 * interpolated is HTML-escaped; pages never show a session id or cookie.
 */
import { type AppUser, escapeHtml, type OrganizationMembership } from "gatehouse-workers";

export function page(title: string, body: string, status = 200): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2328}
h1{font-size:1.5rem}a{color:#0969da}.muted{color:#59636e}</style>
</head><body>${body}</body></html>`;
  return new Response(html, { status, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

export function displayName(user: AppUser): string {
  return `${user.firstName} ${user.lastName}`.trim() || user.email;
}

/** Sign-out is a POST to this worker's own `/logout` (same-origin check, revoked over RPC). */
const SIGN_OUT = `<form method="post" action="/logout"><button type="submit">Sign out</button></form>`;

export function homePage(user: AppUser | null, links: { login: string }, notice?: string): Response {
  const who = user
    ? `<p>Signed in as <strong>${escapeHtml(displayName(user))}</strong>.</p>
<p><a href="/dashboard">Dashboard</a></p>${SIGN_OUT}`
    : `<p>You are not signed in.</p><p><a href="${escapeHtml(links.login)}">Sign in</a></p>`;
  const note = notice ? `<p class="muted">${escapeHtml(notice)}</p>` : "";
  return page("Example consumer", `<h1>Example consumer</h1>${who}${note}`);
}

export function dashboardPage(user: AppUser, organization: OrganizationMembership | null): Response {
  const org = organization
    ? `<p>Organization: <strong>${escapeHtml(organization.organizationSlug)}</strong> (role: ${escapeHtml(organization.role)})</p>`
    : `<p>Organization: <em>none</em></p>`;
  const orgs = user.memberships
    .map(
      (m) =>
        `<li><a href="/org/${encodeURIComponent(m.organizationSlug)}/dashboard">${escapeHtml(m.organizationSlug)}</a> — ${escapeHtml(m.role)}</li>`,
    )
    .join("");
  return page(
    "Dashboard",
    `<h1>Dashboard</h1><p>Hello, <strong>${escapeHtml(displayName(user))}</strong>.</p>${org}
<ul>${orgs}</ul><p><a href="/">Home</a></p>${SIGN_OUT}`,
  );
}

export function adminPage(user: AppUser, slug: string): Response {
  return page(
    `Admin · ${slug}`,
    `<h1>Admin of ${escapeHtml(slug)}</h1><p>${escapeHtml(displayName(user))} may manage this organization.</p>`,
  );
}

export function notMemberPage(slug: string): Response {
  return page("Forbidden", `<h1>Forbidden</h1><p>You are not a member of ${escapeHtml(slug)}.</p>`, 403);
}

/** A sensitive page: behind a recent sign-in (step-up) and never for an impersonated session. */
export function settingsPage(user: AppUser): Response {
  return page(
    "Settings",
    `<h1>Settings</h1><p>${escapeHtml(displayName(user))} signed in recently enough to change settings here.</p><p><a href="/dashboard">Dashboard</a></p>`,
  );
}
