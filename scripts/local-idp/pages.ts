/**
 * The HTML of the local identity provider: the sign-in page where a person picks a demo user (and
 * organization), and plain message pages (errors, signed out). Static markup and inline CSS only:
 * no scripts, and every dynamic value goes through `escapeHtml`.
 */

export function escapeHtml(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f4f5f7;color:#1c2024;
  font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:min(30rem,calc(100vw - 2rem));background:#fff;border-radius:12px;padding:1.75rem;
  box-shadow:0 1px 2px rgb(0 0 0/.06),0 8px 24px rgb(0 0 0/.06)}
.badge{display:inline-block;font-size:12px;color:#8a4b00;background:#fff4e0;border-radius:999px;padding:.1rem .6rem}
h1{font-size:1.35rem;margin:.75rem 0 .25rem}
.sub{color:#60646c;margin:0 0 1.25rem}
ul{list-style:none;margin:0;padding:0;display:grid;gap:.75rem}
li{border:1px solid #e0e1e6;border-radius:10px;padding:.75rem .9rem}
.who{display:flex;align-items:center;gap:.75rem}
.avatar{width:2.25rem;height:2.25rem;border-radius:50%;display:grid;place-items:center;flex:none;
  background:#e6edfe;color:#3a5bc7;font-weight:600;font-size:13px}
.who small{display:block;color:#60646c}
.choices{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.65rem}
.choices form{margin:0}
button{font:inherit;cursor:pointer;border:1px solid #3e63dd;background:#3e63dd;color:#fff;border-radius:8px;
  padding:.4rem .8rem}
button:hover,button:focus-visible{background:#3358d4}
button .role{opacity:.8;font-size:13px;margin-left:.35rem}
.note{display:block;margin-top:.4rem;font-size:13px;color:#8a4b00}
.cancel{margin-top:1.25rem;text-align:center}
.cancel button{background:none;border:none;color:#60646c;text-decoration:underline}
p.msg{color:#60646c}
`;

/** The page frame; `extraStyle` is appended to the shared CSS (trusted, static CSS only). */
export function layout(title: string, body: string, extraStyle = ""): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} · Local identity provider</title>
<style>${STYLE}${extraStyle}</style></head>
<body><main><span class="badge">Local identity provider · development only</span>
${body}
</main></body></html>`;
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
      : `${escapeHtml(choice.organizationName)}<span class="role">${escapeHtml(choice.role ?? "")}</span>`;
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
    items === "" ? `<p class="msg">No demo user belongs to the requested organization.</p>` : `<ul>${items}</ul>`;
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
<input type="hidden" name="cancel" value="1"><button type="submit">Cancel and return to the app</button></form>`,
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
