/**
 * @module
 * The live channel for any page (bundled by scripts/build-live-script.mjs into embed-script.ts and
 * served by the auth worker at /live.js): `<script src="…/live.js" data-channel data-user
 * [data-ticket data-ticket-url] data-signed-out>` (the client SDK's `ServiceAuthMiddleware` writes
 * it into the pages it guards). Tabs of one origin share one socket: the tab holding the
 * `navigator.locks` lock leads, opens the socket and passes every message to the others over a
 * `BroadcastChannel`; when it closes, the next tab in line takes the lock and connects again. A tab
 * of another site joins with a ticket (in the upgrade's `Sec-WebSocket-Protocol`, never in a URL;
 * a fresh one comes from `data-ticket-url` when the page's own is spent or stale). On `session.revoked` every tab goes to
 * the signed-out page; on `session.updated` (a role change) every tab reloads. No dependencies, no
 * secret: the ticket is single-use and bound to the session the page was rendered for.
 */

/** The browser APIs this script uses (the project compiles against workers-types, without the DOM). */
interface Page {
  readonly document: {
    readonly currentScript: { readonly dataset: Record<string, string | undefined>; readonly src: string } | null;
  };
  readonly location: { readonly href: string; assign(url: string): void; reload(): void };
  readonly navigator: {
    readonly locks?: { request(name: string, callback: () => Promise<unknown>): Promise<unknown> };
  };
  readonly BroadcastChannel?: new (
    name: string,
  ) => { postMessage(message: unknown): void; onmessage: ((event: { data: unknown }) => void) | null };
  fetch(url: string, init: Record<string, unknown>): Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>;
  setTimeout(callback: () => void, ms: number): unknown;
  addEventListener(type: "beforeunload", listener: () => void): void;
  readonly WebSocket: new (
    url: string,
    protocols?: string[],
  ) => {
    close(): void;
    onmessage: ((event: { data: unknown }) => void) | null;
    onclose: ((event: { code: number; reason: string }) => void) | null;
  };
}

/** Close codes of the channel (durable-objects/user-sessions/messages.ts). */
const CLOSE_SESSION_REVOKED = 4001;
const CLOSE_SESSION_INACTIVE = 4003;
const MAX_BACKOFF_MS = 30_000;
/** The subprotocols of a ticket upgrade (workers/auth/session/live-ticket.ts). */
const LIVE_PROTOCOL = "gatehouse-live";
const TICKET_PROTOCOL_PREFIX = "gatehouse-ticket.";
const NAVIGATION_GRACE_MS = 3_000;
/**
 * A session replaced by a new sign-in of this browser is ended while the sign-in's answer, which
 * sets the new cookie, is still on its way: reloading at once would present the old cookie.
 */
const REPLACED_RELOAD_DELAY_MS = 1_000;

type Message = { type: string; [key: string]: unknown };

function start(page: Page): void {
  const script = page.document.currentScript;
  const data = script?.dataset ?? {};
  const channel = data.channel;
  const user = data.user;
  const signedOut = data.signedOut;
  if (!script || !channel || !user || !signedOut) return;
  // The channel and the signed-out page are the auth worker's, which served this script: an
  // attribute pointing anywhere else (a page with an HTML injection) is ignored.
  if (!sameServer(script.src, channel) || new URL(signedOut).origin !== new URL(script.src).origin) return;
  const name = `gatehouse-live:${user}`;
  const Bus = page.BroadcastChannel;
  const bus = Bus ? new Bus(name) : null;
  let pageTicket = data.ticket ?? null;
  let leaving = false;
  // This tab is navigating away already (e.g. its own sign-out form): its own navigation wins.
  let navigating = false;
  page.addEventListener("beforeunload", () => {
    navigating = true;
  });

  const leave = () => {
    if (leaving) return;
    leaving = true;
    const target = new URL(signedOut);
    const here = new URL(page.location.href);
    here.hash = ""; // a fragment may hold a token of the app's own
    target.searchParams.set("return_to", here.href);
    page.location.assign(target.href);
  };

  const handle = (message: Message) => {
    // If the navigation under way does not unload this page after all (a download), leave then.
    // Replaced by a new sign-in of this browser as the same person: reload into the new session
    // (another person signing in is `replaced_by_other_user`: like any revocation, leave).
    if (message.type === "session.revoked" && message.reason === "replaced") {
      if (!navigating && !leaving) page.setTimeout(() => leaving || page.location.reload(), REPLACED_RELOAD_DELAY_MS);
    } else if (message.type === "session.revoked") navigating ? page.setTimeout(leave, NAVIGATION_GRACE_MS) : leave();
    else if (message.type === "session.updated" && !leaving) page.location.reload();
  };

  if (bus) {
    bus.onmessage = (event) => {
      const message = event.data as Message | null;
      if (message && typeof message.type === "string") handle(message);
    };
  }

  /**
   * How the next socket joins: with the page's own ticket once, then a fresh one from the app
   * (`data-ticket-url`); `""` for a page of the auth worker itself (its cookie goes along). "gone":
   * the session is over; "none": this page cannot join again (it lets another tab lead).
   */
  const nextTicket = async (): Promise<string | "gone" | "none" | "retry"> => {
    if (data.ticket === undefined) return "";
    if (pageTicket) {
      const ticket = pageTicket;
      pageTicket = null;
      return ticket;
    }
    if (!data.ticketUrl) return "none";
    try {
      const res = await page.fetch(data.ticketUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: { "X-Gatehouse-Live": "1" },
      });
      if (res.status === 401) return "gone";
      if (!res.ok) return "retry";
      const body = (await res.json()) as { ticket?: unknown };
      return typeof body.ticket === "string" && body.ticket !== "" ? body.ticket : "retry";
    } catch {
      return "retry";
    }
  };

  /** The last `session.revoked` the socket delivered (its reason decides: sign out, or reload). */
  let revocation: Message = { type: "session.revoked" };

  /** One socket until it closes: "revoked" when the session is over, else "closed". */
  const connect = (ticket: string) =>
    new Promise<"revoked" | "closed">((resolve) => {
      // The ticket travels in the upgrade itself (a subprotocol, never the URL): the auth worker
      // checks it before the socket reaches anything, whatever cookie comes along.
      const socket = ticket
        ? new page.WebSocket(channel, [LIVE_PROTOCOL, `${TICKET_PROTOCOL_PREFIX}${ticket}`])
        : new page.WebSocket(channel);
      socket.onmessage = (event) => {
        if (typeof event.data !== "string") return;
        let message: Message;
        try {
          // superjson on the wire: `{ json, meta }`; the plain part is all this script reads.
          message = (JSON.parse(event.data) as { json: Message }).json;
        } catch {
          return;
        }
        if (!message || typeof message.type !== "string") return;
        if (message.type === "session.revoked") revocation = message;
        bus?.postMessage(message);
        handle(message);
      };
      socket.onclose = (event) => {
        if (event.code === CLOSE_SESSION_REVOKED) resolve("revoked");
        // Inactive: the session is gone, or (with a ticket) the ticket was stale: the next ticket tells.
        else if (event.code === CLOSE_SESSION_INACTIVE && !ticket) resolve("revoked");
        else resolve("closed");
      };
    });

  const sleep = (ms: number) => new Promise<void>((resolve) => page.setTimeout(resolve, ms));

  /** The leader's loop: keep one socket open for every tab of this origin, for as long as the tab lives. */
  const lead = async (): Promise<void> => {
    let failures = 0;
    while (!leaving) {
      const ticket = await nextTicket();
      if (ticket === "gone") {
        bus?.postMessage({ type: "session.revoked" });
        return handle({ type: "session.revoked" });
      }
      if (ticket === "none") return; // the lock goes to the next tab, which has a ticket of its own
      if (ticket !== "retry") {
        const opened = Date.now();
        const outcome = await connect(ticket);
        if (outcome === "revoked") {
          bus?.postMessage(revocation);
          return handle(revocation);
        }
        // A socket that lived a while closed for a passing reason (a deploy, the network): start over.
        if (Date.now() - opened > 10_000) failures = 0;
      }
      await sleep(Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(failures++, 6)));
    }
  };

  const locks = page.navigator.locks;
  if (locks) void locks.request(name, lead);
  else void lead(); // no Web Locks: every tab holds its own socket
}

/** The socket URL is on the host that served the script (`wss:` for `https:`, `ws:` for `http:`). */
function sameServer(scriptSrc: string, channel: string): boolean {
  try {
    const from = new URL(scriptSrc);
    const to = new URL(channel);
    return to.host === from.host && to.protocol === (from.protocol === "https:" ? "wss:" : "ws:");
  } catch {
    return false;
  }
}

start(globalThis as unknown as Page);

export {};
