/**
 * @module
 * The server-rendered account pages: `/account/sessions` (who is signed in, the session list of
 * view.ts) and `/account/activity` (the timeline of activity-view.ts), each with the hooks the
 * live bundle reads (user id, this tab's session id, the CSRF token) as data attributes. They
 * carry no inline script; the bundle at `LIVE_SCRIPT_PATH` is served by the worker itself.
 */
import type { SecurityEvent } from "../../../client-sdk/protocol/security-record";
import { escapeHtml, page } from "../pages";
import { siteHeader } from "../pages/site-header";
import type { AppUser } from "../types";
import { renderTimeline } from "./activity-view";
import { withContentSecurityPolicy } from "./csp";
import { renderSessionList, type SessionView } from "./view";

/** The activity page's own path. */
export const ACCOUNT_ACTIVITY_PATH = "/account/activity";

/** Where the auth worker serves the live script (account/live-script-route.ts). */
export const LIVE_SCRIPT_PATH = "/account/live.js";

export interface AccountPageInput {
  user: AppUser;
  sessionId: string;
  sessions: readonly SessionView[];
  csrf: string;
  /** A short confirmation for people ("Signed out 2 other sessions."), or null. */
  notice: string | null;
  /** The worker's public origin (the CSP's socket source). */
  origin: string;
}

function displayName(user: AppUser): string {
  return `${user.firstName} ${user.lastName}`.trim() || user.email;
}

/** The element the live bundle reads its hooks from (inside the shell's `<main>`). */
function rootOpen(user: AppUser, sessionId: string, csrf: string, view: "sessions" | "activity"): string {
  return `<div id="account" data-view="${view}" data-user-id="${escapeHtml(user.id)}" data-session-id="${escapeHtml(sessionId)}" data-csrf="${escapeHtml(csrf)}">`;
}

export function accountPage(input: AccountPageInput): Promise<Response> {
  const { user } = input;
  const notice = input.notice ? `<p role="status"><strong>${escapeHtml(input.notice)}</strong></p>` : "";
  const body = `${rootOpen(user, input.sessionId, input.csrf, "sessions")}
<h1>Your sessions</h1>
<p class="muted">Every device where ${escapeHtml(displayName(user))} (${escapeHtml(user.email)}) is signed in. <span id="live-status"></span></p>
${notice}<p id="signed-out" role="alert" hidden><strong>You were signed out</strong></p>
<div id="sessions">${renderSessionList(input.sessions, input.csrf)}</div>
</div>
<script type="module" src="${LIVE_SCRIPT_PATH}"></script>`;
  const header = siteHeader({ user, csrf: input.csrf, current: "/account/sessions" });
  return withContentSecurityPolicy(page("Your sessions", body, 200, undefined, header), input.origin);
}

export interface ActivityPageInput {
  user: AppUser;
  sessionId: string;
  events: readonly SecurityEvent[];
  /** The link to older events, or null on the last page. */
  nextCursor: string | null;
  /** True on the first page: the only one new events are added to live. */
  latest: boolean;
  csrf: string;
  /** The worker's public origin (the CSP's socket source). */
  origin: string;
}

export function activityPage(input: ActivityPageInput): Promise<Response> {
  const { user } = input;
  const older = input.nextCursor
    ? `<p><a href="${ACCOUNT_ACTIVITY_PATH}?cursor=${encodeURIComponent(input.nextCursor)}" rel="next">Older activity</a></p>`
    : "";
  const newest = input.latest ? "" : `<p><a href="${ACCOUNT_ACTIVITY_PATH}">Latest activity</a></p>`;
  const body = `${rootOpen(user, input.sessionId, input.csrf, "activity")}
<h1>Account activity</h1>
<p class="muted">Sign-ins, sign-outs and other security events of ${escapeHtml(displayName(user))} (${escapeHtml(user.email)}). <span id="live-status"></span></p>
<p id="signed-out" role="alert" hidden><strong>You were signed out</strong></p>
<div id="activity"${input.latest ? ' data-live="true"' : ""}>${renderTimeline(input.events, input.csrf)}</div>
${newest}${older}</div>
<script type="module" src="${LIVE_SCRIPT_PATH}"></script>`;
  const header = siteHeader({ user, csrf: input.csrf, current: ACCOUNT_ACTIVITY_PATH });
  return withContentSecurityPolicy(page("Account activity", body, 200, undefined, header), input.origin);
}
