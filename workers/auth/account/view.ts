/**
 * @module
 * The session list of `/account/sessions`: the JSON view of one session and
 * the HTML that lists them. Shared by the server page and the browser bundle
 * (which re-renders the list live), so it imports nothing server-side. Every
 * value is HTML-escaped; it never shows the provider session id.
 */
import { escapeHtml } from "../../../client-sdk/html/escape";
import { describeUserAgent } from "./user-agent";

/** One session as `/account/sessions` shows it (and answers it as JSON). */
export interface SessionView {
  /** Public session id (SHA-256 hex of the cookie token; not a credential). */
  id: string;
  /** True for the session of the request ("this device"). */
  current: boolean;
  /** The user agent made readable ("Firefox 140 on macOS"). */
  device: string;
  userAgent: string | null;
  ip: string | null;
  organizationId: string | null;
  /** The organization's slug, when the user is a member of it. */
  organizationSlug: string | null;
  /** Milliseconds since the epoch. */
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

/** The JSON body of `GET /account/sessions` for a client asking for JSON. */
export interface SessionListBody {
  sessions: SessionView[];
  currentSessionId: string;
}

/** What the view needs of a stored session (`SessionInfo` from the session object). */
export interface SessionFacts {
  id: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  organizationId: string | null;
  userAgent: string | null;
  ip: string | null;
}

/** Path of the form that signs out every other session. */
export const REVOKE_OTHERS_PATH = "/account/sessions/revoke-others";

/** Path of the form that signs out one session. */
export function revokePath(sessionId: string): string {
  return `/account/sessions/${encodeURIComponent(sessionId)}/revoke`;
}

export function toSessionView(
  session: SessionFacts,
  currentSessionId: string,
  memberships: readonly { organizationId: string; organizationSlug: string }[],
): SessionView {
  const org = session.organizationId ? memberships.find((m) => m.organizationId === session.organizationId) : undefined;
  return {
    id: session.id,
    current: session.id === currentSessionId,
    device: describeUserAgent(session.userAgent),
    userAgent: session.userAgent,
    ip: session.ip,
    organizationId: session.organizationId,
    organizationSlug: org?.organizationSlug ?? null,
    createdAt: session.createdAt,
    lastSeenAt: session.lastSeenAt,
    expiresAt: session.expiresAt,
  };
}

/** This device first, then the others by most recent use. */
export function sortSessions(views: SessionView[]): SessionView[] {
  return [...views].sort((a, b) => Number(b.current) - Number(a.current) || b.lastSeenAt - a.lastSeenAt);
}

/** The client SDK's `escapeHtml` (a pure module, so the browser bundle stays server-free). */
export const escapeText = escapeHtml;

/** "2026-11-22 14:05 UTC": the same on the server and in every browser. */
export function formatTime(ms: number): string {
  if (!Number.isFinite(ms)) return "unknown";
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function csrfField(csrf: string): string {
  return `<input type="hidden" name="_csrf" value="${escapeText(csrf)}">`;
}

function renderSession(view: SessionView, csrf: string): string {
  const facts = [
    view.ip ? `IP ${escapeText(view.ip)}` : "IP unknown",
    view.organizationSlug
      ? `organization ${escapeText(view.organizationSlug)}`
      : view.organizationId
        ? `organization ${escapeText(view.organizationId)}`
        : "no organization",
    `signed in <time datetime="${new Date(view.createdAt).toISOString()}">${formatTime(view.createdAt)}</time>`,
    `last seen <time datetime="${new Date(view.lastSeenAt).toISOString()}">${formatTime(view.lastSeenAt)}</time>`,
  ].join(" · ");
  const title = view.userAgent ? ` title="${escapeText(view.userAgent)}"` : "";
  const action = view.current
    ? ""
    : `<form method="post" action="${escapeText(revokePath(view.id))}">${csrfField(csrf)}<button type="submit">Sign out</button></form>`;
  return `<li data-session-id="${escapeText(view.id)}"${view.current ? ' aria-current="true"' : ""}><strong${title}>${escapeText(view.device)}</strong>${view.current ? " — <em>this device</em>" : ""}<br><span class="muted">${facts}</span>${action}</li>`;
}

/** The list and, when there are other sessions, the "Sign out everywhere else" form. */
export function renderSessionList(views: readonly SessionView[], csrf: string): string {
  const items = views.map((v) => renderSession(v, csrf)).join("");
  const others = views.some((v) => !v.current);
  const everywhere = others
    ? `<form method="post" action="${REVOKE_OTHERS_PATH}">${csrfField(csrf)}<button type="submit">Sign out everywhere else</button></form>`
    : `<p class="muted">You are not signed in anywhere else.</p>`;
  return `<ul class="sessions">${items}</ul>${everywhere}`;
}
