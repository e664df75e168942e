/**
 * @module
 * The example consumer's HTML: the SDK's shared look (`renderPage`) with this app's header, and
 * its pages. Everything interpolated is HTML-escaped; pages never show a session id or cookie.
 */
import type { AppUser, OrganizationMembership } from "gatehouse-workers/client";
import { escapeHtml, type PageHeader, renderPage } from "gatehouse-workers/html";
import { LIVE_COUNTER_IDS as IDS } from "./live-script";

/**
 * The header: where to go and, signed in, who with the sign-out button. Sign-out is a POST to this
 * worker's own `/logout` (same-origin check, revoked over RPC), so it carries no CSRF field.
 * `login`: signed out, the sign-in link.
 */
export function consumerHeader(user: AppUser | null, current?: string, login?: string): PageHeader {
  return {
    brand: { label: "Example consumer", href: "/" },
    links: [
      { label: "Home", href: "/" },
      { label: "Dashboard", href: "/dashboard" },
      { label: "Live counter", href: "/live" },
      { label: "Settings", href: "/settings" },
    ],
    ...(current ? { current } : {}),
    person: user ? { name: displayName(user), email: user.email } : null,
    signOut: user ? { action: "/logout" } : null,
    signIn: !user && login ? { label: "Sign in", href: login } : null,
  };
}

/** A page in the shared look; without `header`, the navigation alone (the page does not know who is signed in). */
export function page(title: string, body: string, status = 200, header: PageHeader = consumerHeader(null)): Response {
  const html = renderPage({ title, body, header });
  return new Response(html, { status, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

export function displayName(user: AppUser): string {
  return `${user.firstName} ${user.lastName}`.trim() || user.email;
}

export function homePage(user: AppUser | null, links: { login: string }, notice?: string): Response {
  const who = user
    ? `<p>Signed in as <strong>${escapeHtml(displayName(user))}</strong>.</p>
<p><a class="button" href="/dashboard">Go to your dashboard</a></p>`
    : `<p>You are not signed in.</p><p><a class="button" href="${escapeHtml(links.login)}">Sign in</a></p>`;
  const note = notice ? `<p class="muted">${escapeHtml(notice)}</p>` : "";
  return page(
    "Example consumer",
    `<h1>Example consumer</h1><p>A worker that signs people in through the Gatehouse auth worker and asks it about every request.</p>${who}${note}`,
    200,
    consumerHeader(user, "/", links.login),
  );
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
<h2>Your organizations</h2><ul>${orgs}</ul>`,
    200,
    consumerHeader(user, "/dashboard"),
  );
}

export function adminPage(user: AppUser, slug: string): Response {
  return page(
    `Admin · ${slug}`,
    `<h1>Admin of ${escapeHtml(slug)}</h1><p>${escapeHtml(displayName(user))} may manage this organization.</p>`,
    200,
    consumerHeader(user),
  );
}

/** A sensitive page: behind a recent sign-in (step-up) and never for an impersonated session. */
export function settingsPage(user: AppUser): Response {
  return page(
    "Settings",
    `<h1>Settings</h1><p>${escapeHtml(displayName(user))} signed in recently enough to change settings here.</p>`,
    200,
    consumerHeader(user, "/settings"),
  );
}

/**
 * The live counter (live-counter.ts): one count every signed-in person shares, over a WebSocket that
 * closes when this session is revoked. Its script is `/live/app.js` (same origin, no inline script).
 */
export function livePage(user: AppUser): Response {
  return page(
    "Live counter",
    `<h1>Live counter</h1>
<p>One count shared by everyone signed in here, over a WebSocket of this app. Signing this session out
anywhere closes it at once.</p>
<section id="${IDS.root}" data-state="connecting" aria-live="polite">
<p class="count">Count: <strong id="${IDS.count}">…</strong></p>
<p><button type="button" id="${IDS.button}" disabled>+1</button></p>
<p class="muted" id="${IDS.status}">Connecting…</p>
</section>
<script src="/live/app.js" defer></script>`,
    200,
    consumerHeader(user, "/live"),
  );
}
