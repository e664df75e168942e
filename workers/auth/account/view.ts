/**
 * @module
 * The session list of `/account/sessions`: the JSON view of one session and
 * the HTML that lists them. Shared by the server page and the browser bundle
 * (which re-renders the list live), so it imports nothing server-side. Every
 * value is HTML-escaped; it never shows the provider session id.
 */
import { escapeHtml } from "../../../client-sdk/html/escape";
import type { SessionLocation } from "../../../client-sdk/protocol/security-record";
import { describeUserAgent } from "../session/user-agent";

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
  /** Where it signed in from (coarse: country, region, city, data center), or null. */
  location: SessionLocation | null;
  /** The location made readable ("Lisbon, PT (LIS)"), or "Unknown location". */
  place: string;
  /** Its sign-in was the first from this device and place (`session.new_device`): the page highlights it. */
  newDevice: boolean;
  /** A device key is bound to it (DBSC): its cookie alone, copied elsewhere, does not sign in. */
  bound: boolean;
  /** Milliseconds since the epoch: first and last seen. */
  createdAt: number;
  lastSeenAt: number;
  /** When it ends if unused (the idle timeout, capped by the absolute one). */
  expiresAt: number;
  /** When it ends however much it is used (the absolute timeout). */
  absoluteExpiresAt: number;
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
  /** Absent on sessions from before these were kept. */
  absoluteExpiresAt?: number;
  location?: SessionLocation | null;
  newDevice?: boolean;
  bound?: boolean;
}

/** Path of the form that signs out every other session. */
export const REVOKE_OTHERS_PATH = "/account/sessions/revoke-others";

/** Path of the form that signs out every session, this one too ("this wasn't me"). */
export const REVOKE_ALL_PATH = "/account/sessions/revoke-all";

/** "Lisbon, Lisbon, PT (LIS)" from the parts that are known; "Unknown location" when none is. */
export function describePlace(location: SessionLocation | null | undefined): string {
  if (!location) return "Unknown location";
  const parts = [location.city, location.region, location.country].filter(
    (p, i, all): p is string => typeof p === "string" && p !== "" && all.indexOf(p) === i,
  );
  const place = parts.join(", ");
  if (!place) return location.colo ? `Near ${location.colo}` : "Unknown location";
  return location.colo ? `${place} (${location.colo})` : place;
}

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
    location: session.location ?? null,
    place: describePlace(session.location),
    newDevice: session.newDevice === true,
    bound: session.bound === true,
    createdAt: session.createdAt,
    lastSeenAt: session.lastSeenAt,
    expiresAt: session.expiresAt,
    absoluteExpiresAt: session.absoluteExpiresAt ?? session.expiresAt,
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

/** A `<time>` element: machine-readable and the same text everywhere. */
export function timeTag(ms: number): string {
  if (!Number.isFinite(ms)) return "unknown";
  return `<time datetime="${new Date(ms).toISOString()}">${formatTime(ms)}</time>`;
}

export function csrfField(csrf: string): string {
  return `<input type="hidden" name="_csrf" value="${escapeText(csrf)}">`;
}

/** Beside a device-bound session (DBSC), in words: the page and the admin console show the same. */
export const BOUND_MARKER = ` <span class="muted" title="A device key is bound to this session: a copy of its cookie alone does not sign in">(device-bound)</span>`;

/** The "this wasn't me" form: signs out every session, this one too. */
export function notMeForm(csrf: string): string {
  return `<form method="post" action="${REVOKE_ALL_PATH}">${csrfField(csrf)}<button type="submit">This wasn't me — sign out everywhere</button></form>`;
}

function renderSession(view: SessionView, csrf: string): string {
  const facts = [
    escapeText(view.place),
    view.ip ? `IP ${escapeText(view.ip)}` : "IP unknown",
    view.organizationSlug
      ? `organization ${escapeText(view.organizationSlug)}`
      : view.organizationId
        ? `organization ${escapeText(view.organizationId)}`
        : "no organization",
    `first seen ${timeTag(view.createdAt)}`,
    `last seen ${timeTag(view.lastSeenAt)}`,
  ].join(" · ");
  const limits =
    view.expiresAt < view.absoluteExpiresAt
      ? `ends if unused by ${timeTag(view.expiresAt)}, at the latest ${timeTag(view.absoluteExpiresAt)}`
      : `ends ${timeTag(view.absoluteExpiresAt)}`;
  const title = view.userAgent ? ` title="${escapeText(view.userAgent)}"` : "";
  const action = view.current
    ? ""
    : `<form method="post" action="${escapeText(revokePath(view.id))}">${csrfField(csrf)}<button type="submit">Sign out</button></form>`;
  // A new device that is not this one: the person may not know it.
  const alert =
    view.newDevice && !view.current
      ? `<p class="alert"><strong>New device.</strong> The first sign-in from this device and place.</p>${notMeForm(csrf)}`
      : view.newDevice
        ? ` <span class="muted">(new device)</span>`
        : "";
  return `<li data-session-id="${escapeText(view.id)}"${view.current ? ' aria-current="true"' : ""}${view.newDevice ? ' data-new-device="true"' : ""}${view.bound ? ' data-bound="true"' : ""}><strong${title}>${escapeText(view.device)}</strong>${view.current ? " — <em>this device</em>" : ""}${view.bound ? BOUND_MARKER : ""}${view.newDevice && view.current ? alert : ""}<br><span class="muted">${facts}</span><br><span class="muted">${limits}</span>${view.newDevice && !view.current ? alert : ""}${action}</li>`;
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
