/**
 * @module
 * The timeline of `/account/activity`: one event as a person reads it, and the list. Shared by
 * the server page and the browser bundle (which prepends events as they arrive live), so it
 * imports nothing server-side. Every value is HTML-escaped; event details are rendered by field,
 * never as markup.
 */
import type { RevocationActor, SecurityEvent } from "../../../client-sdk/protocol/security-record";
import { describePlace, escapeText, notMeForm, timeTag } from "./view";

/** The JSON body of `GET /account/activity` for a client asking for JSON. */
export interface ActivityBody {
  events: SecurityEvent[];
  /** Pass as `?cursor=` for the next (older) page; null: no more. */
  nextCursor: string | null;
}

/** The cursor form the timeline issues (`c` + base-36 position). */
export const CURSOR_PATTERN = /^c[0-9a-z]{1,11}$/;

/** What a person reads when their directory deactivated them (revocation reason `user_deactivated`). */
export const DEACTIVATED_NOTICE = "Your account was deactivated in your organization's directory";

/** Who acted, as a person reads it. */
export function describeActor(actor: RevocationActor | null): string {
  if (!actor) return "Gatehouse";
  const label = actor.label ? ` (${actor.label})` : "";
  switch (actor.kind) {
    case "user":
      return "you";
    case "admin":
      return `an administrator${label}`;
    case "provider":
      return `your identity provider${label}`;
    case "policy":
      return actor.label === "max_sessions" ? "the session limit" : `a policy${label}`;
    case "kill_switch":
      return `your organization's kill switch${label}`;
    default:
      return `Gatehouse${label}`;
  }
}

function detail(event: SecurityEvent, key: string): string | number | boolean | null {
  return Object.hasOwn(event.detail, key) ? (event.detail[key] ?? null) : null;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** One sentence for the event: what happened, and who did it. */
export function describeEvent(event: SecurityEvent): string {
  switch (event.type) {
    case "session.signed_in":
      return "Signed in";
    case "session.new_device":
      return "Signed in from a new device";
    case "session.signed_out": {
      const reason = detail(event, "reason");
      if (reason === "replaced") return "Signed in again on this device (the old session ended)";
      if (reason === "replaced_by_other_user") return "Someone else signed in on this device (this session ended)";
      return "Signed out";
    }
    case "session.impersonated":
      return `${String(detail(event, "impersonator") ?? "An operator")} signed in as you${detail(event, "reason") ? ` (${String(detail(event, "reason"))})` : ""}`;
    case "session.revoked": {
      const n = Number(detail(event, "sessions") ?? 1);
      if (detail(event, "reason") === "user_deactivated") {
        return `${DEACTIVATED_NOTICE}: ${n === 1 ? "a session was" : `${plural(n, "session", "sessions")} were`} signed out`;
      }
      return `${n === 1 ? "A session was" : `${plural(n, "session", "sessions")} were`} signed out by ${describeActor(event.actor)}`;
    }
    case "session.refused": {
      const reason = detail(event, "reason");
      if (reason === "session_limit") {
        return `A sign-in was refused: the limit of ${String(detail(event, "maxSessions"))} sessions was reached`;
      }
      if (reason === "device_proof_missing") {
        return "A device-bound session was used without its device's key and refused (a copied cookie?)";
      }
      if (reason === "device_refresh_skipped") {
        // The reason is the request's own word (`Secure-Session-Skipped`), which a copied cookie's
        // holder can send too (the session id is public): never worded as surely this browser.
        return `A device-bound session was used without a fresh device proof and refused; the request said its browser could not refresh it (${skippedReason(detail(event, "skipped"))}). If this place is not yours, it may be a copied cookie`;
      }
      return "A signed-out session was used again and refused";
    }
    case "session.device_bound":
      return "A session was bound to its device's key (a copy of its cookie alone will not sign in)";
    case "session.device_refresh_failed":
      return `A device proof for a session was refused (${refreshFailure(detail(event, "reason"))})`;
    case "membership.changed": {
      const org = detail(event, "organizationSlug") ?? detail(event, "organizationId") ?? "an organization";
      const change = String(detail(event, "change") ?? "updated");
      const role = detail(event, "role");
      return `Membership of ${String(org)} ${change}${role ? `: role ${String(role)}` : ""}`;
    }
    case "ratelimit.lockout":
      return `Too many requests (${String(detail(event, "family") ?? "limit")}): paused for ${String(detail(event, "retryAfter") ?? "?")} s`;
    case "signal.received":
      return `${String(detail(event, "issuer") ?? "An identity provider")} reported a security event (${signalName(detail(event, "event"))}): ${signalOutcome(detail(event, "outcome"))}`;
    case "account.ended":
      return detail(event, "reason") === "user_deactivated"
        ? DEACTIVATED_NOTICE
        : "Your account was deleted at your identity provider";
    case "organization.sessions_ended":
      return `Every session in ${String(detail(event, "organizationId") ?? "your organization")} was ended by ${describeActor(event.actor)}`;
    default:
      return String(event.type);
  }
}

/** The last segment of a CAEP/RISC event type URI ("session-revoked"), as a person reads it. */
function signalName(type: string | number | boolean | null): string {
  const name =
    String(type ?? "")
      .split("/")
      .pop() ?? "";
  return /^[a-z0-9-]{1,64}$/.test(name) ? name.replaceAll("-", " ") : "unknown";
}

/** What a shared signal came to, as a person reads it. */
function signalOutcome(outcome: string | number | boolean | null): string {
  if (outcome === "revoked") return "sessions were signed out";
  if (outcome === "no_session") return "no session to sign out";
  if (outcome === "unknown_event") return "not acted on";
  if (outcome === "verified") return "a test of the connection";
  if (outcome === "replayed") return "a repeated copy, refused";
  if (outcome === "expired") return "too old, refused";
  if (outcome === "wrong_audience") return "addressed to another service, refused";
  return "recorded";
}

/** Why a browser skipped its device-proof refresh (`Secure-Session-Skipped`), as a person reads it. */
function skippedReason(reason: string | number | boolean | null): string {
  if (reason === "unreachable") return "unreachable";
  if (reason === "server_error") return "server error";
  if (reason === "quota_exceeded") return "too many refreshes";
  return "reason not given";
}

/** Why a refresh proof was refused, as a person reads it. */
function refreshFailure(reason: string | number | boolean | null): string {
  if (reason === "bad_signature") return "not signed by the device's key";
  if (reason === "unknown_challenge") return "a used or expired challenge";
  return "unreadable proof";
}

/**
 * A bound session's cookie presented without its device's proof (likely a copied cookie), with or
 * without a `Secure-Session-Skipped` saying why (anyone holding the cookie can send that header, so
 * it must not lower the alarm), or a refresh proof signed by another key: highlighted.
 */
function isCopiedCookie(event: SecurityEvent): boolean {
  if (event.type === "session.device_refresh_failed") return detail(event, "reason") === "bad_signature";
  const reason = detail(event, "reason");
  return event.type === "session.refused" && (reason === "device_proof_missing" || reason === "device_refresh_skipped");
}

/** One event as a list item; a new device carries the "this wasn't me" form, a copied cookie is highlighted. */
export function renderEvent(event: SecurityEvent, csrf: string): string {
  const facts = [
    timeTag(event.at),
    ...(event.device ? [escapeText(event.device)] : []),
    ...(event.location ? [escapeText(describePlace(event.location))] : []),
    ...(event.ip ? [`IP ${escapeText(event.ip)}`] : []),
  ].join(" · ");
  const newDevice = event.type === "session.new_device";
  const alert = newDevice || isCopiedCookie(event);
  const sentence = escapeText(describeEvent(event));
  return `<li data-event-id="${escapeText(event.id)}" data-type="${escapeText(event.type)}"><strong${alert ? ' class="alert"' : ""}>${sentence}</strong><br><span class="muted">${facts}</span>${newDevice ? notMeForm(csrf) : ""}</li>`;
}

/** The list, newest first, or a line saying there is nothing yet. */
export function renderTimeline(events: readonly SecurityEvent[], csrf: string): string {
  if (events.length === 0) return `<ul class="events"></ul><p class="muted" id="no-events">No activity yet.</p>`;
  return `<ul class="events">${events.map((e) => renderEvent(e, csrf)).join("")}</ul>`;
}
