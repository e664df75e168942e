/**
 * @module
 * Browser entry of the account pages (bundled by scripts/build-live-script.mjs,
 * served by the worker at /account/live.js): joins the user's live channel with
 * partysocket and keeps the page true. On `/account/sessions`, `sessions.changed`
 * re-renders the list from the JSON route; on `/account/activity` (first page),
 * `timeline.appended` adds the event on top. On both, `session.revoked` for this
 * tab's session (or close code 4001 / 4003) says "You were signed out" (or, for a
 * directory deactivation, that the account was deactivated) and goes to the login page. It holds no secret and sends nothing but the cookies the
 * browser attaches itself.
 */
import { PartySocket } from "partysocket";
import type { RevocationReason } from "../../../../client-sdk/protocol/lifecycle";
import type { SecurityEvent } from "../../../../client-sdk/protocol/security-record";
import type * as messages from "../../../../durable-objects/user-sessions/messages";
import { type ActivityBody, DEACTIVATED_NOTICE, renderEvent, renderTimeline } from "../activity-view";
import { renderSessionList, type SessionListBody } from "../view";
import { browser } from "./browser";
import { decodeLiveMessage } from "./wire";

/**
 * The channel's close codes, typed as messages.ts declares them (not imported: that module pulls
 * in superjson, which the script does without; see ./wire.ts).
 */
const CLOSE_SESSION_REVOKED: typeof messages.CLOSE_SESSION_REVOKED = 4001;
const CLOSE_SESSION_INACTIVE: typeof messages.CLOSE_SESSION_INACTIVE = 4003;
type LiveMessage = messages.LiveMessage;
/** `LIVE_PARTY` of workers/auth/live/route.ts (not imported: that module pulls in partyserver). */
const PARTY = "user-sessions";
const LIST_URL = "/account/sessions";
const ACTIVITY_URL = "/account/activity";
/** Events kept on a live page; older ones are a link away. */
const MAX_LIVE_EVENTS = 200;
/** Long enough to read the notice, short enough to leave within a second. */
const SIGN_OUT_DELAY_MS = 600;
/** A replaced session ends while the new sign-in's answer (the new cookie) is still on its way. */
const REPLACED_RELOAD_DELAY_MS = 1_000;
const REFRESH_DEBOUNCE_MS = 100;

function start(): void {
  const { document, location } = browser();
  const root = document.getElementById("account");
  const activityView = root?.dataset.view === "activity";
  const list = document.getElementById(activityView ? "activity" : "sessions");
  const userId = root?.dataset.userId;
  const sessionId = root?.dataset.sessionId;
  const csrf = root?.dataset.csrf;
  if (!list || !userId || !sessionId || !csrf) return;
  const liveTimeline = activityView && list.dataset.live === "true";
  const loginUrl = `/auth/login?return_to=${encodeURIComponent(activityView ? ACTIVITY_URL : LIST_URL)}`;
  const status = document.getElementById("live-status");
  let signedOut = false;
  let connectedBefore = false;
  let refreshTimer: ReturnType<typeof setTimeout> | null = null;

  const socket = new PartySocket({
    host: location.host,
    protocol: location.protocol === "https:" ? "wss" : "ws",
    party: PARTY,
    room: userId,
    // The server closes a revoked or inactive session's socket for good: reconnecting would be refused.
    shouldReconnectOnClose: (event) => event.code !== CLOSE_SESSION_REVOKED && event.code !== CLOSE_SESSION_INACTIVE,
  });

  const setStatus = (text: string) => {
    if (status) status.textContent = text;
  };

  const signOut = (reason?: RevocationReason) => {
    if (signedOut) return;
    signedOut = true;
    clearTimeout(refreshTimer);
    socket.close();
    setStatus("");
    list.innerHTML = "";
    const notice = document.getElementById("signed-out");
    if (notice) {
      notice.hidden = false;
      notice.textContent = reason === "user_deactivated" ? DEACTIVATED_NOTICE : "You were signed out";
    }
    setTimeout(() => location.assign(loginUrl), SIGN_OUT_DELAY_MS);
  };

  const refresh = async () => {
    const res = await fetch(activityView ? ACTIVITY_URL : LIST_URL, { headers: { Accept: "application/json" } });
    if (res.status === 401) return signOut();
    if (!res.ok || signedOut) return;
    if (activityView) {
      // Only the first page follows along; an older page is a fixed window on the past.
      if (!liveTimeline) return;
      const body = (await res.json()) as ActivityBody;
      if (!signedOut) list.innerHTML = renderTimeline(body.events, csrf);
      return;
    }
    const body = (await res.json()) as SessionListBody;
    if (!signedOut) list.innerHTML = renderSessionList(body.sessions, csrf);
  };

  /** Adds one event on top of the live timeline, once (a refresh may have shown it already). */
  const append = (event: SecurityEvent) => {
    const items = list.querySelector("ul.events");
    if (!items) return;
    const shown = Array.from(items.querySelectorAll("li[data-event-id]"));
    if (shown.some((li) => li.dataset.eventId === event.id)) return;
    items.insertAdjacentHTML("afterbegin", renderEvent(event, csrf));
    document.getElementById("no-events")?.remove();
    for (const extra of shown.slice(MAX_LIVE_EVENTS - 1)) extra.remove();
  };

  const scheduleRefresh = () => {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => {
      refresh().catch(() => setStatus("Could not refresh the list; reload the page."));
    }, REFRESH_DEBOUNCE_MS);
  };

  socket.addEventListener("message", (event) => {
    if (typeof event.data !== "string") return;
    let message: LiveMessage;
    try {
      message = decodeLiveMessage(event.data);
    } catch {
      return; // not ours, or garbled: ignore
    }
    // Replaced by a new sign-in of this browser as the same person: the page reloads into the new
    // session (another person signing in is `replaced_by_other_user`: signed out like any revocation).
    if (message.type === "session.revoked" && message.sessionId === sessionId && message.reason === "replaced") {
      signedOut = true;
      socket.close();
      setTimeout(() => location.reload(), REPLACED_RELOAD_DELAY_MS);
    } else if (message.type === "session.revoked" && message.sessionId === sessionId) signOut(message.reason);
    else if (message.type === "timeline.appended") {
      if (liveTimeline) append(message.event);
    } else if (!activityView && (message.type === "sessions.changed" || message.type === "session.updated"))
      scheduleRefresh();
  });

  socket.addEventListener("open", () => {
    setStatus("This list updates live.");
    // Changes made while the socket was down were missed: catch up.
    if (connectedBefore) scheduleRefresh();
    connectedBefore = true;
  });

  socket.addEventListener("close", (event) => {
    if (signedOut) return;
    if (event.code === CLOSE_SESSION_REVOKED || event.code === CLOSE_SESSION_INACTIVE) return signOut();
    setStatus("Reconnecting…");
    // A reconnect the server refuses (the session ended while offline) surfaces as a 401 here.
    scheduleRefresh();
  });
}

start();
