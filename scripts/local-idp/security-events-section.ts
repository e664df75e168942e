/**
 * The directory page's "Security events (from the auth worker)" section: the latest deliveries
 * the receiver kept (event, user, device, place, time) and where they arrive. Markup only, no
 * scripts; every dynamic value goes through `escapeHtml`.
 */
import { escapeHtml } from "./pages.ts";
import { describePlace, type ReceivedSecurityEvent } from "./security-events.ts";

/** Rows the section shows at most. */
export const SECTION_SIZE = 20;

export interface DashboardSecurityEvent {
  type: string;
  /** The demo person's name, or the user id the event names. */
  user: string;
  device: string | null;
  place: string | null;
  /** When it happened (ISO 8601). */
  time: string;
  /** Retried deliveries of the same event that were dropped. */
  duplicates: number;
}

export interface SecurityEventsSection {
  /** The URL deliveries are received at, or null when the receiver is off. */
  receiver: string | null;
  /** Newest first. */
  events: DashboardSecurityEvent[];
}

/** The section's rows from the receiver's deliveries (newest first), naming users by `nameOf`. */
export function sectionEvents(
  received: readonly ReceivedSecurityEvent[],
  nameOf: (userId: string) => string | null,
): DashboardSecurityEvent[] {
  return received.slice(0, SECTION_SIZE).map(({ event, duplicates }) => ({
    type: event.type,
    user: nameOf(event.userId) ?? event.userId,
    device: event.device,
    place: describePlace(event.location),
    time: new Date(event.at).toISOString(),
    duplicates,
  }));
}

function row(e: DashboardSecurityEvent): string {
  const retries = e.duplicates > 0 ? ` <span class="muted">(+${e.duplicates} retried)</span>` : "";
  return `<tr><td>${escapeHtml(e.type)}${retries}</td><td>${escapeHtml(e.user)}</td><td>${escapeHtml(e.device ?? "—")}</td><td>${escapeHtml(e.place ?? "—")}</td><td>${escapeHtml(e.time)}</td></tr>`;
}

export function renderSecurityEventsSection(section: SecurityEventsSection): string {
  const where =
    section.receiver === null
      ? "The receiver is off: start the provider with LOCAL_IDP_SECURITY_EVENTS_SECRET (gatehouse-workers dev does when .dev.vars has SECURITY_EVENTS_WEBHOOK_SECRET)."
      : `The auth worker's signed events are received at ${section.receiver} (its SECURITY_EVENTS_WEBHOOK_URL).`;
  const list = section.events.length
    ? `<table><tr><th>event</th><th>user</th><th>device</th><th>place</th><th>time</th></tr>${section.events.map(row).join("")}</table>`
    : `<p class="muted">No security events yet.</p>`;
  return `<h2>Security events (from the auth worker)</h2>
<p class="muted">${escapeHtml(where)}</p>
${list}`;
}
