/**
 * @module
 * console.js: the console's only script (served by the worker, `script-src 'self'`). On a
 * person's page it refreshes the sessions, timeline, receipts and deliveries every few seconds
 * while the tab is visible, by fetching the same page and swapping `#console-live`; forms keep
 * working without it. It reads nothing but this page and sends nothing but GETs.
 */
export const CONSOLE_SCRIPT_TYPE = "text/javascript; charset=utf-8";

/** How often the open person's page refreshes (ms). */
export const CONSOLE_REFRESH_MS = 5000;

export const CONSOLE_SCRIPT = `(() => {
  const root = document.getElementById("console");
  const live = document.getElementById("console-live");
  if (!root || !live || !root.dataset.live) return;
  live.setAttribute("aria-live", "polite");
  const refresh = async () => {
    if (document.visibilityState !== "visible") return;
    try {
      const res = await fetch(location.pathname, { headers: { Accept: "text/html" }, credentials: "same-origin", redirect: "error" });
      if (!res.ok) return;
      const next = new DOMParser().parseFromString(await res.text(), "text/html").getElementById("console-live");
      if (next && next.innerHTML !== live.innerHTML) live.replaceChildren(...next.childNodes);
    } catch {}
  };
  setInterval(refresh, ${CONSOLE_REFRESH_MS});
})();
`;
