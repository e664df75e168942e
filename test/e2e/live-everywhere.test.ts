/**
 * Flow 8 (issue 18): the live channel in a consuming app's pages. The consumer's page joins its
 * session's channel with a ticket (through the auth worker's /live.js); revoking that session from
 * another device's account page sends the consumer tab to "You were signed out" without a reload
 * of its own; ten tabs of the app hold exactly one socket, and closing the tab that holds it hands
 * it to another; a role change at the provider reloads the consumer tab with the new role.
 */
import type { BrowserContext, Page, WebSocket } from "playwright-core";
import { afterAll, expect, it, onTestFailed } from "vitest";
import {
  newPerson,
  pickDemoUser,
  screenshot,
  sessionIdOf,
  signedInTab,
  stack,
  textOf,
  useBrowser,
} from "./support/browser";

const browser = useBrowser();
const GRACE_ACME = "om_01GRACEACME000000000000000";

/** Every socket a page opens to the auth worker's live channel, with the frames it received. */
interface Watched {
  page: Page;
  sockets: { ws: WebSocket; frames: string[] }[];
}

/** The waits under way: each re-checks its condition on every socket event of a watched page. */
const waits = new Set<() => void>();
const socketEvent = () => {
  for (const recheck of [...waits]) recheck();
};

function watch(page: Page): Watched {
  const watched: Watched = { page, sockets: [] };
  page.on("websocket", (ws) => {
    if (!ws.url().includes("/parties/user-sessions/")) return;
    const entry = { ws, frames: [] as string[] };
    ws.on("framereceived", (frame) => {
      entry.frames.push(String(frame.payload));
      socketEvent();
    });
    ws.on("close", socketEvent);
    watched.sockets.push(entry);
    socketEvent();
  });
  return watched;
}

const openSockets = (pages: Watched[]) => pages.flatMap((p) => p.sockets.filter((s) => !s.ws.isClosed()));
const joined = (pages: Watched[]) => openSockets(pages).filter((s) => s.frames.some((f) => f.includes('"live.ready"')));

/**
 * Resolves once `check` holds, re-checked on each socket event of the watched pages: no sleep,
 * no deadline of its own (the test's timeout bounds it; a failed test names what it waited for).
 */
function until(check: () => boolean, what: string): Promise<void> {
  return new Promise((resolve) => {
    const recheck = () => {
      if (!check()) return;
      waits.delete(recheck);
      resolve();
    };
    waits.add(recheck);
    onTestFailed(() => {
      if (waits.delete(recheck)) console.error(`still waiting for ${what}`);
    });
    recheck();
  });
}

/** The Web Locks of this origin's live scripts (embed.ts: the tab holding the lock leads, the others wait for it). */
function liveLocks(page: Page): Promise<{ held: number; pending: number }> {
  return page.evaluate(async () => {
    type Lock = { name?: string };
    const { navigator } = globalThis as unknown as {
      navigator: { locks: { query(): Promise<{ held?: Lock[]; pending?: Lock[] }> } };
    };
    const { held = [], pending = [] } = await navigator.locks.query();
    const live = (lock: Lock) => lock.name?.startsWith("gatehouse-live:") === true;
    return { held: held.filter(live).length, pending: pending.filter(live).length };
  });
}

/** Signs Grace in on the consumer (through the auth worker's login) and leaves a watched tab on /dashboard. */
async function consumerTab(context: BrowserContext): Promise<Watched> {
  const page = await context.newPage();
  const watched = watch(page);
  await page.goto(`${stack.consumerUrl}/dashboard`);
  await pickDemoUser(page, "Grace Hopper", "Acme");
  await page.waitForURL(`${stack.consumerUrl}/dashboard`);
  return watched;
}

async function setRole(role: "admin" | "member"): Promise<void> {
  const res = await fetch(`${stack.idpUrl}/__local/memberships/${GRACE_ACME}/role`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ role }),
  });
  expect(res.status).toBe(200);
}

afterAll(() => setRole("member"));

it("a consumer page joins with a ticket and signs out live when its session is revoked elsewhere", async () => {
  const laptop = await newPerson(browser());
  const tab = await consumerTab(laptop);
  await until(() => joined([tab]).length === 1, "the consumer tab to join its channel");
  // The ticket went in the upgrade's subprotocol, never in the socket's URL; Chromium completed the
  // handshake, so the 101 named the subprotocol it asked for (RFC 6455 §4.2.2; a browser fails it otherwise).
  const [socket] = joined([tab]);
  expect(socket!.ws.url()).toMatch(/\/parties\/user-sessions\/user_[0-9A-Z]+$/);

  const account = await laptop.newPage();
  await account.goto(`${stack.authUrl}/account/sessions`);
  const laptopSession = await sessionIdOf(account);
  await account.close();

  const phone = await newPerson(browser());
  const other = await signedInTab(phone, "Grace Hopper", "Acme");
  const started = performance.now();
  await other.locator(`li[data-session-id="${laptopSession}"] form[action$="/revoke"]`).getByRole("button").click();
  await tab.page.waitForURL(`${stack.authUrl}/auth/signed-out?**`, { timeout: 5_000 });
  const ms = performance.now() - started;
  expect(ms).toBeLessThan(5_000);
  expect(await textOf(tab.page)).toContain("You were signed out");
  expect(new URL(tab.page.url()).searchParams.get("return_to")).toBe(`${stack.consumerUrl}/dashboard`);
  await screenshot(tab.page, "8-consumer-signed-out");
  await Promise.all([laptop.close(), phone.close()]);
});

it("ten tabs of one app hold one socket; closing the tab that holds it hands the socket to another", async () => {
  const context = await newPerson(browser());
  const first = await consumerTab(context);
  const tabs: Watched[] = [first];
  for (let i = 1; i < 10; i++) {
    const page = await context.newPage();
    tabs.push(watch(page));
    await page.goto(`${stack.consumerUrl}/dashboard`);
  }
  await until(() => joined(tabs).length === 1, "one joined socket");
  // Settled: every tab's script has run (each page has loaded) and asked for the lock; one tab holds
  // it, the nine others wait for it and so cannot open a socket. Exactly one was ever opened.
  expect(await liveLocks(tabs.at(-1)!.page)).toEqual({ held: 1, pending: 9 });
  expect(openSockets(tabs)).toHaveLength(1);
  expect(tabs.flatMap((t) => t.sockets)).toHaveLength(1);

  const leader = tabs.find((t) => openSockets([t]).length === 1)!;
  await leader.page.close();
  const rest = tabs.filter((t) => t !== leader);
  await until(() => joined(rest).length === 1, "another tab to take the socket over");
  expect(openSockets(rest)).toHaveLength(1);
  await context.close();
});

it("a role change at the provider reloads the consumer tab with the new role", async () => {
  const context = await newPerson(browser());
  const tab = await consumerTab(context);
  await until(() => joined([tab]).length === 1, "the tab to join its channel");
  expect(await textOf(tab.page)).toContain("(role: member)");
  const reloaded = tab.page.waitForEvent("load");
  await setRole("admin");
  await reloaded;
  await tab.page.getByText("(role: admin)").waitFor();
  await screenshot(tab.page, "8-role-change-reloaded");
  await context.close();
});
