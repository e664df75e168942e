/**
 * The live channel in a real browser (issue 18), side by side in one run:
 * - live.consumer_vs_account_ratio: from the revoke call (the admin API) until a consuming app's
 *   page (joined with a ticket through /live.js) has navigated away (its signed-out page committed),
 *   over the same for the auth worker's own /account/sessions page (until it shows "You were signed
 *   out": it leaves for the login 600 ms later, by design). Median of rounds that alternate which
 *   page is revoked first.
 * - live.sockets_per_user_10_tabs: sockets to the channel held open by ten tabs of one app.
 * - live.app_connection_vs_account_ratio (issue 31): one person signed in on the example consumer
 *   with its live counter open (`/live`: the app's own WebSocket, `SessionSockets`) and our
 *   /account/sessions in a second tab of the same session; one revoke call (the admin API) per
 *   round, both timed from its start: until the counter's socket has closed (4001, from the
 *   consumer's `GatehouseRevocations` entrypoint) over until the account page shows "You were
 *   signed out". The issue says "from the revoke answer"; our tab is told before the answer (the
 *   answer waits for the KV marks), so both sides start at the call, as the figure above does.
 *   `live.app_connection_closed_ms` is the app side's median, with the counter in use (a `+1` sent
 *   and answered first); `live.app_connection_idle_closed_ms` the same for a counter socket that never
 *   sent a frame, measured in the same run.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, it } from "vitest";
import { launchBrowser, newPerson, pickDemoUser, stack } from "../../test/e2e/support/browser";
import { holdSignedOutPage, liveCounterTab } from "../../test/e2e/support/live-counter";
import { median, record } from "../harness";

let browser: Awaited<ReturnType<typeof launchBrowser>>;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

const ROUNDS = 7;

/**
 * A signed-in person (Grace) in a fresh context: a tab on `path` of `origin`, the session's id, and
 * `live`: resolves once the tab's channel is joined (the consumer's socket answered `live.ready`,
 * the account page says it updates live).
 */
async function signedIn(origin: string, path: string) {
  const context = await newPerson(browser);
  const page = await context.newPage();
  const consumer = origin === stack.consumerUrl;
  const ready = consumer
    ? page
        .waitForEvent("websocket", { predicate: (ws) => ws.url().includes("/parties/user-sessions/"), timeout: 30_000 })
        .then((ws) => ws.waitForEvent("framereceived", { predicate: (f) => String(f.payload).includes("live.ready") }))
    : null;
  await page.goto(`${origin}${path}`);
  await pickDemoUser(page, "Grace Hopper", "Acme");
  await page.waitForURL(`${origin}${path}`);
  if (ready) await ready;
  else await page.locator("#live-status", { hasText: "updates live" }).waitFor();
  const me = await context.request.get(`${stack.authUrl}/account/sessions`, {
    headers: { Accept: "application/json" },
  });
  const { currentSessionId } = (await me.json()) as { currentSessionId: string };
  return { context, page, sessionId: currentSessionId };
}

/** Milliseconds from the revoke call (the admin API) until `shown` resolves. */
async function revokeAndTime(sessionId: string, shown: () => Promise<unknown>): Promise<number> {
  const seen = shown();
  const start = performance.now();
  const res = await fetch(`${stack.authUrl}/admin/sessions/${sessionId}`, {
    method: "DELETE",
    headers: { Authorization: `Bearer ${stack.adminToken}` },
  });
  if (res.status !== 200) throw new Error(`revoke answered ${res.status}`);
  await seen;
  return performance.now() - start;
}

it("live.consumer_vs_account_ratio", async (ctx) => {
  const consumerMs: number[] = [];
  const accountMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const consumer = await signedIn(stack.consumerUrl, "/dashboard");
    const account = await signedIn(stack.authUrl, "/account/sessions");
    // Each tab's first visible answer: the consumer tab's "You were signed out" page has committed;
    // the account page shows its own notice in place (it leaves for the login 600 ms later).
    const measure = {
      consumer: () =>
        revokeAndTime(consumer.sessionId, () =>
          consumer.page.waitForURL(`${stack.authUrl}/auth/signed-out**`, { waitUntil: "commit", timeout: 15_000 }),
        ),
      account: () =>
        revokeAndTime(account.sessionId, () =>
          account.page.locator("#signed-out").waitFor({ state: "visible", timeout: 15_000 }),
        ),
    };
    // Alternate the order, so neither side always goes first.
    if (round % 2 === 0) {
      consumerMs.push(await measure.consumer());
      accountMs.push(await measure.account());
    } else {
      accountMs.push(await measure.account());
      consumerMs.push(await measure.consumer());
    }
    await Promise.all([consumer.context.close(), account.context.close()]);
  }
  record(ctx, "live.consumer_vs_account_ratio", {
    value: Number((median(consumerMs) / median(accountMs)).toFixed(3)),
    unit: "x",
    goal: "<= 1.5",
  });
  record(ctx, "live.consumer_signed_out_ms", { value: Math.round(median(consumerMs)), unit: "ms", goal: "reported" });
  record(ctx, "live.account_signed_out_ms", { value: Math.round(median(accountMs)), unit: "ms", goal: "reported" });
});

it("live.sockets_per_user_10_tabs", async (ctx) => {
  const context = await newPerson(browser);
  const first = await context.newPage();
  const sockets: { closed: () => boolean }[] = [];
  const watch = (page: Page) =>
    page.on("websocket", (ws) => {
      if (ws.url().includes("/parties/user-sessions/")) sockets.push({ closed: () => ws.isClosed() });
    });
  watch(first);
  await first.goto(`${stack.consumerUrl}/dashboard`);
  await pickDemoUser(first, "Grace Hopper", "Acme");
  await first.waitForURL(`${stack.consumerUrl}/dashboard`);
  for (let i = 1; i < 10; i++) {
    const page = await context.newPage();
    watch(page);
    await page.goto(`${stack.consumerUrl}/dashboard`);
  }
  // Every tab has loaded and run its script; give them time to open sockets if they (wrongly) would.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  record(ctx, "live.sockets_per_user_10_tabs", {
    value: sockets.filter((s) => !s.closed()).length,
    unit: "count",
    goal: "1",
  });
  await context.close();
});

/**
 * One round of the app-connection figure: Grace on the counter and on our account page (one
 * session), one revoke call; both sides timed from its start. `used`: the counter's socket has
 * carried a `+1` (and its answer) before the revoke, as a counter in use has.
 */
async function appConnectionRound(used: boolean): Promise<{ appMs: number; accountMs: number }> {
  const context = await newPerson(browser);
  const counter = await liveCounterTab(context, { user: "Grace Hopper", organization: "Acme" });
  if (used) {
    const before = Number(await counter.page.locator("#live-count").textContent());
    await counter.page.getByRole("button", { name: "+1" }).click();
    await counter.page.locator("#live-count", { hasText: new RegExp(`^${before + 1}$`) }).waitFor();
  }
  const account = await context.newPage();
  await account.goto(`${stack.authUrl}/account/sessions`);
  await account.locator("#live-status", { hasText: "updates live" }).waitFor();
  const me = await context.request.get(`${stack.authUrl}/account/sessions`, {
    headers: { Accept: "application/json" },
  });
  const { currentSessionId } = (await me.json()) as { currentSessionId: string };
  // The counter tab's /live.js leaves for the signed-out page on our channel's word; held until
  // the counter's own socket has closed, so the browser does not close it first (support/live-counter.ts).
  const release = await holdSignedOutPage(counter.page);
  let start = 0;
  const app = counter.closed.then((closed) => ({ code: closed.code, ms: closed.at - start }));
  const own = account
    .locator("#signed-out")
    .waitFor({ state: "visible", timeout: 15_000 })
    .then(() => performance.now() - start);
  start = performance.now();
  const res = await fetch(`${stack.authUrl}/admin/sessions/${currentSessionId}`, {
    method: "DELETE",
    headers: { Authorization: `Bearer ${stack.adminToken}` },
  });
  if (res.status !== 200) throw new Error(`revoke answered ${res.status}`);
  const [appRound, accountMs] = await Promise.all([app, own]);
  if (appRound.code !== 4001) throw new Error(`the counter's socket closed with ${appRound.code}, not 4001`);
  release();
  await context.close();
  return { appMs: appRound.ms, accountMs };
}

it("live.app_connection_vs_account_ratio", async (ctx) => {
  const used = { app: [] as number[], account: [] as number[] };
  const idle: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const r = await appConnectionRound(true);
    used.app.push(r.appMs);
    used.account.push(r.accountMs);
    idle.push((await appConnectionRound(false)).appMs);
  }
  record(ctx, "live.app_connection_vs_account_ratio", {
    value: Number((median(used.app) / median(used.account)).toFixed(3)),
    unit: "x",
    goal: "<= 1.5 (both from the revoke call's start; a counter in use)",
    reason:
      "The app's server closes the socket within tens of milliseconds of the call (the notice goes out at the commit); what the page sees is the browser's close event. A socket that never carried a frame from the page sees it about 2 s later under wrangler dev (live.app_connection_idle_closed_ms): Chromium then waits for the connection's end, which the local proxy gives only then.",
  });
  record(ctx, "live.app_connection_closed_ms", { value: Math.round(median(used.app)), unit: "ms", goal: "reported" });
  record(ctx, "live.app_connection_idle_closed_ms", {
    value: Math.round(median(idle)),
    unit: "ms",
    goal: "reported (a counter socket that never sent a frame)",
  });
});
