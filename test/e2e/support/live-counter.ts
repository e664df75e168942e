/**
 * The example consumer's live counter (`/live`, issue 31) in a browser: open it, wait until its
 * own socket (`/live/socket`, not the auth worker's channel) is open, and learn how it closed. On a
 * revocation the page's `/live.js` leaves for the auth worker's signed-out page as soon as our
 * channel tells it; were that navigation to commit first, the browser would close the counter's
 * socket itself and the server's 4001 could not be seen, so `holdSignedOutPage` holds it until
 * released. While it is held Playwright's `evaluate` and locators wait for it to finish, so the
 * close is reported by the page itself: an init script wraps the page's own `onclose` and calls
 * back into the test with the close code and what the page's script then recorded on
 * `#live-counter`. Waits are on events and selectors only.
 */
import type { BrowserContext, Page, WebSocket } from "playwright-core";
import { pickDemoUser, stack } from "./browser";

export const LIVE_SOCKET_PATH = "/live/socket";

/** How the counter's first socket closed, as the page saw it. */
export interface CounterClosed {
  /** The close code the page's `close` event carried. */
  code: number;
  /** What the page's script recorded once it handled the close (`data-state`, `data-closed-code`, status text). */
  recorded: { state: string | null; closedCode: string | null; status: string };
  /** `performance.now()` of this process when the page reported it. */
  at: number;
}

export interface LiveCounterTab {
  page: Page;
  /** The counter's socket (Playwright's view). */
  socket: WebSocket;
  /** Resolves when the page saw its counter socket close. */
  closed: Promise<CounterClosed>;
}

const BINDING = "__gatehouseTestCounterClosed";

/**
 * Runs in the page before its scripts: wraps the `onclose` the page's script sets on the counter's
 * socket, so the report follows the page's own handler in the same task (no timer: a tab in the
 * background has its timers throttled to a second or more).
 */
const REPORT_CLOSE = `(() => {
  const Native = globalThis.WebSocket;
  globalThis.WebSocket = class extends Native {
    set onclose(handler) {
      if (new URL(this.url).pathname !== ${JSON.stringify(LIVE_SOCKET_PATH)}) {
        super.onclose = handler;
        return;
      }
      super.onclose = (event) => {
        if (handler) handler.call(this, event);
        const root = document.getElementById("live-counter");
        globalThis[${JSON.stringify(BINDING)}](event.code, {
          state: root?.dataset.state ?? null,
          closedCode: root?.dataset.closedCode ?? null,
          status: document.getElementById("live-counter-status")?.textContent ?? "",
        });
      };
    }
    get onclose() {
      return super.onclose;
    }
  };
})()`;

/**
 * A new tab on the consumer's `/live`, signing in as `as` on the provider's page when the context
 * has no session yet; resolves once the counter's socket is open and its first count shown.
 */
export async function liveCounterTab(
  context: BrowserContext,
  as?: { user: string; organization: string },
): Promise<LiveCounterTab> {
  const page = await context.newPage();
  let report!: (closed: CounterClosed) => void;
  const closed = new Promise<CounterClosed>((resolve) => {
    report = resolve;
  });
  await page.exposeBinding(BINDING, (_source, code: number, recorded: CounterClosed["recorded"]) => {
    report({ code, recorded, at: performance.now() });
  });
  await page.addInitScript(REPORT_CLOSE);
  const opened = page.waitForEvent("websocket", {
    predicate: (ws) => new URL(ws.url()).pathname === LIVE_SOCKET_PATH,
    timeout: 30_000,
  });
  const target = `${stack.consumerUrl}/live`;
  await page.goto(target);
  if (as) {
    await pickDemoUser(page, as.user, as.organization);
    await page.waitForURL(target);
  }
  const socket = await opened;
  await page.locator('#live-counter[data-state="open"]').waitFor();
  await page.locator("#live-count", { hasText: /^\d+$/ }).waitFor(); // the count the socket sends first
  return { page, socket, closed };
}

/**
 * Holds every navigation of `page` to the auth worker's signed-out page until the returned
 * `release` is called (then it goes through unchanged).
 */
export async function holdSignedOutPage(page: Page): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(`${stack.authUrl}/auth/signed-out**`, async (route) => {
    await released;
    await route.continue().catch(() => {
      // The page was closed meanwhile (a failed test's cleanup): nothing to let through.
    });
  });
  return release;
}
