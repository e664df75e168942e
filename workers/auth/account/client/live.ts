/**
 * @module
 * Browser entry of `/account/sessions` (bundled by scripts/build-client.mjs,
 * served as a static asset): joins the user's live channel with partysocket
 * and keeps the page true. `sessions.changed` re-renders the list from the
 * JSON route; `session.revoked` for this tab's session (or close code 4001 /
 * 4003) says "You were signed out" and goes to the login page. It holds no
 * secret and sends nothing but the cookies the browser attaches itself.
 */
import { PartySocket } from "partysocket";
import {
  CLOSE_SESSION_INACTIVE,
  CLOSE_SESSION_REVOKED,
  decodeMessage,
  type LiveMessage,
} from "../../../../durable-objects/user-sessions/messages";
import { renderSessionList, type SessionListBody } from "../view";
import { browser } from "./browser";

/** `LIVE_PARTY` of workers/auth/live/route.ts (not imported: that module pulls in partyserver). */
const PARTY = "user-sessions";
const LIST_URL = "/account/sessions";
const LOGIN_URL = "/auth/login?return_to=%2Faccount%2Fsessions";
/** Long enough to read the notice, short enough to leave within a second. */
const SIGN_OUT_DELAY_MS = 600;
const REFRESH_DEBOUNCE_MS = 100;

function start(): void {
  const { document, location } = browser();
  const root = document.getElementById("account");
  const list = document.getElementById("sessions");
  const userId = root?.dataset.userId;
  const sessionId = root?.dataset.sessionId;
  const csrf = root?.dataset.csrf;
  if (!list || !userId || !sessionId || !csrf) return;
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

  const signOut = () => {
    if (signedOut) return;
    signedOut = true;
    clearTimeout(refreshTimer);
    socket.close();
    setStatus("");
    list.innerHTML = "";
    const notice = document.getElementById("signed-out");
    if (notice) {
      notice.hidden = false;
      notice.textContent = "You were signed out";
    }
    setTimeout(() => location.assign(LOGIN_URL), SIGN_OUT_DELAY_MS);
  };

  const refresh = async () => {
    const res = await fetch(LIST_URL, { headers: { Accept: "application/json" } });
    if (res.status === 401) return signOut();
    if (!res.ok || signedOut) return;
    const body = (await res.json()) as SessionListBody;
    if (!signedOut) list.innerHTML = renderSessionList(body.sessions, csrf);
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
      message = decodeMessage(event.data);
    } catch {
      return; // not ours, or garbled: ignore
    }
    if (message.type === "session.revoked" && message.sessionId === sessionId) signOut();
    else if (message.type === "sessions.changed" || message.type === "session.updated") scheduleRefresh();
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
