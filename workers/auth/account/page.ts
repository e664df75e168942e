/**
 * @module
 * The server-rendered `/account/sessions` page: who is signed in, the
 * session list (see view.ts), and the hooks the live bundle reads (user id,
 * this tab's session id, the CSRF token) as data attributes. It carries no
 * inline script; the bundle at `LIVE_SCRIPT_PATH` is served by the worker itself.
 */
import { escapeHtml, page } from "../routes/pages";
import type { AppUser } from "../types";
import { withContentSecurityPolicy } from "./csp";
import { renderSessionList, type SessionView } from "./view";

/** Where the auth worker serves the live script (account/live-script-route.ts). */
export const LIVE_SCRIPT_PATH = "/account/live.js";

export interface AccountPageInput {
  user: AppUser;
  sessionId: string;
  sessions: readonly SessionView[];
  csrf: string;
  /** A short confirmation for people ("Signed out 2 other sessions."), or null. */
  notice: string | null;
  url: URL;
}

export function accountPage(input: AccountPageInput): Promise<Response> {
  const { user } = input;
  const name = `${user.firstName} ${user.lastName}`.trim() || user.email;
  const notice = input.notice ? `<p role="status"><strong>${escapeHtml(input.notice)}</strong></p>` : "";
  const body = `<main id="account" data-user-id="${escapeHtml(user.id)}" data-session-id="${escapeHtml(input.sessionId)}" data-csrf="${escapeHtml(input.csrf)}">
<h1>Your sessions</h1>
<p class="muted">Signed in as ${escapeHtml(name)} (${escapeHtml(user.email)}). <span id="live-status"></span></p>
${notice}<p id="signed-out" role="alert" hidden><strong>You were signed out</strong></p>
<div id="sessions">${renderSessionList(input.sessions, input.csrf)}</div>
<form method="post" action="/auth/logout"><input type="hidden" name="_csrf" value="${escapeHtml(input.csrf)}"><p><a href="/">Home</a> · <button type="submit">Sign out of this device</button></p></form>
</main>
<script type="module" src="${LIVE_SCRIPT_PATH}"></script>`;
  return withContentSecurityPolicy(page("Your sessions", body), input.url);
}
