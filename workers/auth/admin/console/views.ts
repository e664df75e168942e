/**
 * @module
 * The admin console's HTML: the gate (sign in as an operator, or break glass with an admin token),
 * the home (search, kill switch, the console's activity), a user (sessions with devices and places,
 * timeline, receipts, security-event deliveries, revoke forms) and a receipt. Forms post with the
 * CSRF field and work without JavaScript; console.js refreshes the user's sections when it runs.
 * Everything interpolated is escaped; ids are never trusted as markup.
 */

import type { SessionInfo } from "../../../../client-sdk/protocol/lifecycle";
import type {
  RevocationReceipt,
  SecurityEvent,
  SecurityEventDeliveries,
  SecurityEventDestination,
} from "../../../../client-sdk/protocol/security-record";
import { describeEvent } from "../../account/activity-view";
import { BOUND_MARKER, csrfField, describePlace, timeTag } from "../../account/view";
import { escapeHtml } from "../../pages";
import { describeUserAgent } from "../../session/user-agent";
import type { OperatorLogEntry } from "../operator-log";

export const CONSOLE_PATH = "/admin";
export const CONSOLE_SCRIPT_PATH = "/admin/console.js";
/** Where the gate's form opens a break-glass session: the one console path open to a non-operator. */
export const BREAK_GLASS_PATH = `${CONSOLE_PATH}/console/break-glass`;

/** Who is using the console: a break-glass session, or a signed-in admin of an operators' organization. */
export type Operator =
  | { kind: "break-glass"; label: string; endsAt: number }
  | { kind: "admin"; label: string; userId: string };

export function userPath(userId: string): string {
  return `${CONSOLE_PATH}/console/users/${encodeURIComponent(userId)}`;
}

export function receiptPath(id: string): string {
  return `${CONSOLE_PATH}/console/receipts/${encodeURIComponent(id)}`;
}

/** The strip at the top of every console page: who is operating, and (break glass) until when. */
function operatorBar(operator: Operator, csrf: string): string {
  const who =
    operator.kind === "break-glass"
      ? `<p class="alert" role="note" id="break-glass"><strong>Break-glass session</strong> (admin token “${escapeHtml(operator.label.replace(/^break-glass:/, ""))}”): it ends at ${timeTag(operator.endsAt)}. Every action is recorded.</p>`
      : `<p class="muted">Operating as ${escapeHtml(operator.label)}.</p>`;
  const close =
    operator.kind === "break-glass"
      ? `<form method="post" action="${CONSOLE_PATH}/console/sign-out">${csrfField(csrf)}<button type="submit">End the break-glass session</button></form>`
      : "";
  return `${who}<nav aria-label="Console"><a href="${CONSOLE_PATH}">Console home</a></nav>${close}`;
}

export function gateBody(input: { csrf: string; breakGlass: boolean; signedIn: boolean }): string {
  const signIn = input.signedIn
    ? `<p>You are signed in, but not as an operator.</p>`
    : `<p><a href="/auth/login?return_to=${encodeURIComponent(CONSOLE_PATH)}">Sign in as an operator</a> (an admin of an operators' organization; you may be asked to sign in again).</p>`;
  const glass = input.breakGlass
    ? `<h2>Break glass</h2>
<p class="muted">When sign-in is not possible: an admin token opens a console session of at most 15 minutes, marked on every page and recorded.</p>
<form method="post" action="${BREAK_GLASS_PATH}">${csrfField(input.csrf)}
<p><label for="token">Admin token</label><br><input id="token" name="token" type="password" autocomplete="off" required></p>
<p><button type="submit">Open the console</button></p></form>`
    : "";
  return `<div id="console"><h1>Admin console</h1>${signIn}${glass}</div>`;
}

export function homeBody(input: {
  operator: Operator;
  csrf: string;
  log: readonly OperatorLogEntry[];
  organizations: boolean;
  notice: string | null;
}): string {
  const { csrf } = input;
  const notice = input.notice ? `<p role="status"><strong>${escapeHtml(input.notice)}</strong></p>` : "";
  const killSwitch = input.organizations
    ? `<h2>End an organization's sessions</h2>
<form method="post" action="${CONSOLE_PATH}/console/organizations/end">${csrfField(csrf)}
<p><label for="organization">Organization id</label><br><input id="organization" name="organizationId" required pattern="[A-Za-z0-9_\\-]{1,128}"></p>
<p><button type="submit">End every member's sessions</button></p></form>`
    : "";
  const log = listOr(input.log, "Nothing yet.", "operator-log", logItem);
  return `<div id="console"><h1>Admin console</h1>${operatorBar(input.operator, csrf)}${notice}
<h2>Find a person</h2>
<form method="get" action="${CONSOLE_PATH}/console/search"><p><label for="q">Email or user id</label><br><input id="q" name="q" required maxlength="320" autocomplete="off"> <button type="submit">Search</button></p></form>
${killSwitch}
<h2>Recent console activity and receipts</h2>${log}</div>`;
}

function logItem(entry: OperatorLogEntry): string {
  const what: Record<OperatorLogEntry["action"], string> = {
    "break_glass.opened": "opened a break-glass session",
    "break_glass.closed": "ended a break-glass session",
    "session.revoked": "signed out a session of",
    "user.revoked": "signed out every session of",
    "organization.ended": "ended every session of organization",
  };
  const target = entry.target
    ? entry.action === "organization.ended"
      ? ` <code>${escapeHtml(entry.target)}</code>`
      : ` <a href="${userPath(entry.target)}">${escapeHtml(entry.target)}</a>`
    : "";
  const receipt = entry.receiptId
    ? ` · <a href="${receiptPath(entry.receiptId)}">receipt ${escapeHtml(entry.receiptId)}</a>`
    : "";
  return `<li>${timeTag(entry.at)} · ${escapeHtml(entry.operator)} ${what[entry.action]}${target}${receipt}</li>`;
}

export function userBody(input: {
  operator: Operator;
  csrf: string;
  userId: string;
  sessions: readonly SessionInfo[];
  events: readonly SecurityEvent[];
  receipts: readonly RevocationReceipt[];
  deliveries: SecurityEventDeliveries;
}): string {
  const { csrf, userId } = input;
  const base = userPath(userId);
  const rows = input.sessions
    .map(
      (
        s,
      ) => `<tr data-session-id="${escapeHtml(s.id)}"><td>${escapeHtml(s.device ?? describeUserAgent(s.userAgent))}${s.newDevice ? ` <strong class="alert">new device</strong>` : ""}${s.bound ? BOUND_MARKER : ""}</td>
<td>${escapeHtml(describePlace(s.location))}${s.ip ? `<br><span class="muted">IP ${escapeHtml(s.ip)}</span>` : ""}</td>
<td>${timeTag(s.createdAt)}</td><td>${timeTag(s.lastSeenAt)}</td>
<td><form method="post" action="${base}/sessions/${encodeURIComponent(s.id)}/revoke">${csrfField(csrf)}<button type="submit" aria-label="Sign out the session on ${escapeHtml(s.device ?? "this device")} from ${escapeHtml(describePlace(s.location))}">Sign out</button></form></td></tr>`,
    )
    .join("");
  const sessions =
    input.sessions.length === 0
      ? `<p class="muted" id="no-sessions">No live sessions.</p>`
      : `<table id="sessions"><caption>Live sessions (${input.sessions.length})</caption>
<thead><tr><th scope="col">Device</th><th scope="col">Place</th><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col">Action</th></tr></thead><tbody>${rows}</tbody></table>
<form method="post" action="${base}/revoke">${csrfField(csrf)}<button type="submit">Sign out every session</button></form>`;
  const events = listOr(
    input.events,
    "No activity.",
    "timeline",
    (e) =>
      `<li>${timeTag(e.at)} · ${escapeHtml(describeEvent(e))}${e.device ? ` · ${escapeHtml(e.device)}` : ""}${e.location ? ` · ${escapeHtml(describePlace(e.location))}` : ""}</li>`,
  );
  const receipts = listOr(
    input.receipts,
    "No revocations.",
    "receipts",
    (r) =>
      `<li><a href="${receiptPath(r.id)}">${escapeHtml(r.id)}</a> · ${timeTag(r.at)} · ${r.revoked} signed out by ${escapeHtml(r.actor.label ?? r.actor.kind)}</li>`,
  );
  return `<div id="console" data-live="${escapeHtml(base)}"><h1>Person <code>${escapeHtml(userId)}</code></h1>${operatorBar(input.operator, csrf)}
<div id="console-live"><h2>Sessions</h2>${sessions}
<h2>Security timeline</h2>${events}
<h2>Revocation receipts</h2>${receipts}
<h2>Security-event deliveries</h2>${deliveriesList(input.deliveries)}</div></div>
<script src="${CONSOLE_SCRIPT_PATH}" defer></script>`;
}

function deliveriesList(deliveries: SecurityEventDeliveries): string {
  if (deliveries.pending.length === 0 && deliveries.recent.length === 0) {
    return `<p class="muted">No deliveries (no queue, webhook or app configured, or nothing sent yet).</p>`;
  }
  const pending = deliveries.pending
    .map(
      (d) =>
        `<li>${escapeHtml(d.type ?? "event")} to ${destinationLabel(d.destination)}: waiting, ${d.attempts} failed attempt(s), next at ${timeTag(d.nextAt)}</li>`,
    )
    .join("");
  const recent = deliveries.recent
    .map(
      (d) =>
        `<li>${timeTag(d.at)} · ${escapeHtml(d.type ?? "event")} to ${destinationLabel(d.destination)}: ${d.outcome} (attempt ${d.attempt})</li>`,
    )
    .join("");
  return `<ul id="deliveries">${pending}${recent}</ul>`;
}

/** "the queue", "the webhook", or "app <code>name</code>" (an app's notices, `app:<name>`). */
function destinationLabel(destination: SecurityEventDestination): string {
  if (destination === "queue" || destination === "webhook") return `the ${destination}`;
  return `app <code>${escapeHtml(destination.slice("app:".length))}</code>`;
}

export function receiptBody(operator: Operator, csrf: string, receipt: RevocationReceipt): string {
  const refused =
    receipt.refusedAfterMs === null
      ? "still telling members (reload for progress)"
      : `refused within ${receipt.refusedAfterMs} ms`;
  return `<div id="console"><h1>Receipt</h1>${operatorBar(operator, csrf)}
<dl id="receipt"><dt>Id</dt><dd><code>${escapeHtml(receipt.id)}</code></dd>
<dt>When</dt><dd>${timeTag(receipt.at)}</dd>
<dt>By</dt><dd>${escapeHtml(receipt.actor.label ?? receipt.actor.kind)}</dd>
<dt>Sessions signed out</dt><dd>${receipt.revoked}</dd>
<dt>Open tabs told</dt><dd>${receipt.socketsClosed}</dd>
<dt>Stored records deleted</dt><dd>${receipt.kvDeleted} (${receipt.kvPending} pending)</dd>
<dt>Strict refusal</dt><dd>${escapeHtml(refused)}</dd></dl></div>`;
}

/** A `<ul>` of the items (each rendered by `item`, which escapes), or a muted note when there are none. */
function listOr<T>(items: readonly T[], none: string, id: string, item: (value: T) => string): string {
  return items.length === 0 ? `<p class="muted">${none}</p>` : `<ul id="${id}">${items.map(item).join("")}</ul>`;
}
