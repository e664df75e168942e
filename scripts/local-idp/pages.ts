/**
 * The HTML of the local identity provider: the sign-in page where a person picks a demo user (and
 * organization), and plain message pages (errors, signed out), in the SDK's shared look. Static
 * markup and one inline `<style>` only: no scripts, and every dynamic value goes through `escapeHtml`.
 */
import { type PageHeader, renderPage } from "../../client-sdk/html/theme.ts";

export function escapeHtml(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** This provider's own parts, on top of the shared look (client-sdk/html/theme.ts). */
const STYLE = `
.badge{display:inline-block;font-size:.875rem;background:var(--note);border-radius:999px;padding:.1rem .7rem;margin:.5rem 0 0}
.sub{color:var(--muted);margin:0 0 1.25rem}
.who{display:flex;align-items:center;gap:.75rem}
.avatar{width:2.25rem;height:2.25rem;border-radius:50%;display:grid;place-items:center;flex:none;
  background:var(--surface);border:1px solid var(--border);font-weight:600;font-size:.8rem}
.who small{display:block;color:var(--muted)}
.choices{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.65rem}
.choices form{margin:0}
.role{font-weight:400;margin-left:.35rem}
.note{display:block;margin-top:.4rem;background:var(--note);padding:.25rem .5rem}
.cancel{margin-top:1.25rem}
p.msg{color:var(--muted)}
`;

const HEADER: PageHeader = {
  brand: { label: "Local identity provider", href: "/" },
  links: [{ label: "Directory", href: "/" }],
};

/** The page frame: the shared look, this provider's header; `extraStyle` is appended to the CSS (trusted, static CSS only). */
export function layout(title: string, body: string, extraStyle = "", current?: string): string {
  return renderPage({
    title: `${title} · Local identity provider`,
    head: `<meta name="robots" content="noindex">`,
    header: current ? { ...HEADER, current } : HEADER,
    styles: `${STYLE}${extraStyle}`,
    body: `<p class="badge">Development only: demo people, no passwords</p>
${body}`,
  });
}

/** One button on the sign-in page: this user into this organization (or none). */
export interface SignInChoice {
  organizationId: string | null;
  organizationName: string | null;
  role: string | null;
}

export interface SignInUser {
  id: string;
  name: string;
  email: string;
  choices: SignInChoice[];
  /** An armed impersonation: choosing this user signs in as them on behalf of this email. */
  impersonatedBy?: string | null;
}

export interface SignInPage {
  requestId: string;
  /** Where the person is signing in to, e.g. `127.0.0.1:8787`. */
  appHost: string;
  users: SignInUser[];
  /**
   * The app asked for a fresh authentication (`prompt=login` and/or `max_age` seconds). The page
   * always needs a click, and that click is the fresh authentication.
   */
  reauthentication?: { prompt: string | null; maxAge: number | null } | null;
}

const ACTION = "/user_management/authorize";

function initials(name: string): string {
  return name
    .split(/\s+/)
    .map((part) => part[0] ?? "")
    .join("")
    .slice(0, 2)
    .toUpperCase();
}

function choiceForm(requestId: string, user: SignInUser, choice: SignInChoice): string {
  const org = choice.organizationId ?? "";
  const label =
    choice.organizationName === null
      ? "Continue without an organization"
      : `${escapeHtml(choice.organizationName)}<span class="role">· ${escapeHtml(choice.role ?? "")}</span>`;
  return `<form method="post" action="${ACTION}" data-user="${escapeHtml(user.id)}" data-organization="${escapeHtml(org)}">
<input type="hidden" name="request_id" value="${escapeHtml(requestId)}">
<input type="hidden" name="user_id" value="${escapeHtml(user.id)}">
<input type="hidden" name="organization_id" value="${escapeHtml(org)}">
<button type="submit">${label}</button></form>`;
}

export function renderSignInPage(page: SignInPage): string {
  const items = page.users
    .map(
      (user) => `<li><div class="who"><span class="avatar" aria-hidden="true">${escapeHtml(initials(user.name))}</span>
<div><strong>${escapeHtml(user.name)}</strong><small>${escapeHtml(user.email)}</small></div></div>${impersonationNote(user)}
<div class="choices">${user.choices.map((c) => choiceForm(page.requestId, user, c)).join("\n")}</div></li>`,
    )
    .join("\n");
  const list =
    items === ""
      ? `<p class="msg">No demo user belongs to the requested organization.</p>`
      : `<ul class="cards">${items}</ul>`;
  const again = page.reauthentication ?? null;
  const heading = again === null ? "Sign in" : "Sign in again to continue";
  const sub =
    again === null
      ? `to ${escapeHtml(page.appHost)} — pick a demo user`
      : `${escapeHtml(page.appHost)} asks you to confirm it is you${reauthenticationDetail(again)} — pick a demo user`;
  return layout(
    heading,
    `<h1>${heading}</h1><p class="sub" data-reauthentication="${again === null ? "" : "1"}">${sub}</p>
${list}
<form class="cancel" method="post" action="${ACTION}"><input type="hidden" name="request_id" value="${escapeHtml(page.requestId)}">
<input type="hidden" name="cancel" value="1"><button type="submit" class="secondary">Cancel and return to the app</button></form>`,
  );
}

function impersonationNote(user: SignInUser): string {
  if (!user.impersonatedBy) return "";
  return `<span class="note" data-impersonated-by="${escapeHtml(user.impersonatedBy)}">Impersonation armed: signing in as ${escapeHtml(user.name)} on behalf of ${escapeHtml(user.impersonatedBy)}</span>`;
}

function reauthenticationDetail(again: { prompt: string | null; maxAge: number | null }): string {
  const parts: string[] = [];
  if (again.prompt !== null) parts.push(`prompt=${escapeHtml(again.prompt)}`);
  if (again.maxAge !== null) parts.push(`max_age=${again.maxAge}s`);
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

/** A page with a title and one sentence, for errors and the signed-out state. */
export function renderMessagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p class="msg">${escapeHtml(message)}</p>`);
}
