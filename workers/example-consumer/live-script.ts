/**
 * @module
 * The live counter page's script, served by this worker at `/live/app.js` (same origin: the page's
 * CSP allows `script-src 'self'` and never inline script). It opens `/live/socket`, shows the count,
 * sends `+1` on the button, and on close says why: 4001 "Signed out" (the session was revoked: no
 * reconnect), 4004 reconnects once (a device proof was missing; only the real device passes), any
 * other close reconnects with backoff. The last close code and when it came (`performance.now()`)
 * go on `#live-counter` as `data-closed-code` / `data-closed-at`, for the browser tests. Plain ES2020,
 * no dependency; the auth worker's `/live.js` on the same page still takes the tab to its
 * signed-out page.
 */

/** The page's elements the script drives (pages.ts `livePage`). */
export const LIVE_COUNTER_IDS = {
  root: "live-counter",
  count: "live-count",
  status: "live-counter-status",
  button: "live-increment",
} as const;

export const LIVE_COUNTER_SCRIPT = `"use strict";
(() => {
  const root = document.getElementById(${JSON.stringify(LIVE_COUNTER_IDS.root)});
  const count = document.getElementById(${JSON.stringify(LIVE_COUNTER_IDS.count)});
  const status = document.getElementById(${JSON.stringify(LIVE_COUNTER_IDS.status)});
  const button = document.getElementById(${JSON.stringify(LIVE_COUNTER_IDS.button)});
  if (!root || !count || !status || !button) return;
  const url = new URL("/live/socket", location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  let socket = null;
  let backoff = 1000;
  let proofRetried = false;
  const say = (state, text) => {
    root.dataset.state = state;
    status.textContent = text;
  };
  const connect = () => {
    say("connecting", "Connecting…");
    const ws = new WebSocket(url.href);
    socket = ws;
    ws.onopen = () => {
      backoff = 1000;
      button.disabled = false;
      say("open", "Live");
    };
    ws.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message && message.type === "count" && typeof message.count === "number") {
        count.textContent = String(message.count);
      }
    };
    ws.onclose = (event) => {
      if (socket !== ws) return;
      socket = null;
      button.disabled = true;
      root.dataset.closedCode = String(event.code);
      root.dataset.closedAt = String(performance.now());
      if (event.code === 4001 || event.code === 4003) {
        say("signed-out", "Signed out");
        return;
      }
      if (event.code === 4004 && !proofRetried) {
        proofRetried = true;
        connect();
        return;
      }
      say("closed", "Disconnected, reconnecting…");
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 30000);
    };
  };
  button.addEventListener("click", () => {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send("+1");
  });
  connect();
})();
`;
