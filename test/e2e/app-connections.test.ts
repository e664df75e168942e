/**
 * Flow 9 (issue 31): a revocation closes the app's own live connections. Device 1 signs in on the
 * example consumer and opens its live counter (`/live`: a WebSocket to the consumer's own
 * `LiveCounter` object, accepted with `SessionSockets`) and, in a second tab, its account page.
 * Device 2, the same person, signs device 1's session out on its account page: the auth worker's
 * notice reaches the consumer's `GatehouseRevocations` entrypoint over the APP_EXAMPLE service
 * binding, and the counter's socket closes with 4001 within 1.5 times what our own account page
 * took to show "You were signed out" (both timed from the same click; at least one second, so a
 * 30 ms page does not make a 45 ms budget), then the tab lands on the signed-out page. "Sign out
 * everywhere else" closes only the other sessions' sockets.
 */
import { expect, it } from "vitest";
import {
  live,
  newPerson,
  SIGN_IN_PAGE,
  screenshot,
  sessionIdOf,
  signedInTab,
  stack,
  textOf,
  useBrowser,
} from "./support/browser";
import { holdSignedOutPage, liveCounterTab } from "./support/live-counter";

const browser = useBrowser();
const GRACE = { user: "Grace Hopper", organization: "Acme" };
/** The goal of `live.app_connection_vs_account_ratio`, and its floor for a fast account page. */
const GOAL_RATIO = 1.5;
const FLOOR_MS = 1_000;

const exactly = (n: number) => new RegExp(`^${n}$`);

it("signing a session out on another device closes its app socket 4001 within 1.5x our account page, then the tab signs out", async () => {
  const device1 = await newPerson(browser());
  const counter = await liveCounterTab(device1, GRACE);
  const account = await device1.newPage();
  await account.goto(`${stack.authUrl}/account/sessions`);
  await live(account);
  const session1 = await sessionIdOf(account);

  // The counter works: +1 on device 1 is counted and sent back.
  const before = Number(await counter.page.locator("#live-count").textContent());
  await counter.page.getByRole("button", { name: "+1" }).click();
  await counter.page.locator("#live-count", { hasText: exactly(before + 1) }).waitFor();

  const device2 = await newPerson(browser());
  const other = await signedInTab(device2, GRACE.user, GRACE.organization);
  await live(other);
  const row = other.locator(`li[data-session-id="${session1}"]`);
  await row.waitFor();

  const release = await holdSignedOutPage(counter.page);
  let start = 0;
  const appClosed = counter.closed.then((closed) => ({ ...closed, ms: closed.at - start }));
  const accountSignedOut = account
    .locator("#signed-out")
    .waitFor({ state: "visible", timeout: 15_000 })
    .then(() => performance.now() - start);
  start = performance.now();
  await row.locator('form[action$="/revoke"]').getByRole("button").click();
  const [app, accountMs] = await Promise.all([appClosed, accountSignedOut]);
  const appMs = app.ms;

  expect(app.code).toBe(4001);
  expect(app.recorded).toEqual({ state: "signed-out", closedCode: "4001", status: "Signed out" });
  console.info(
    `app socket closed after ${Math.round(appMs)} ms; account page signed out after ${Math.round(accountMs)} ms`,
  );
  expect(appMs).toBeLessThanOrEqual(Math.max(GOAL_RATIO * accountMs, FLOOR_MS));

  // Then /live.js takes the tab to the auth worker's signed-out page, back to /live afterwards.
  release();
  await counter.page.waitForURL(`${stack.authUrl}/auth/signed-out?**`);
  expect(await textOf(counter.page)).toContain("You were signed out");
  expect(new URL(counter.page.url()).searchParams.get("return_to")).toBe(`${stack.consumerUrl}/live`);
  await screenshot(counter.page, "9-app-connection-signed-out");
  await Promise.all([device1.close(), device2.close()]);
});

it("sign out everywhere else closes the other sessions' app sockets and keeps this device's own", async () => {
  const laptop = await newPerson(browser());
  const laptopCounter = await liveCounterTab(laptop, GRACE);
  const phone = await newPerson(browser());
  const phoneAccount = await signedInTab(phone, GRACE.user, GRACE.organization);
  const phoneCounter = await liveCounterTab(phone); // the phone's session, already signed in

  const releaseLaptop = await holdSignedOutPage(laptopCounter.page);
  await phoneAccount.getByRole("button", { name: "Sign out everywhere else" }).click();
  const laptopClosed = await laptopCounter.closed;
  expect(laptopClosed.code).toBe(4001);
  expect(laptopClosed.recorded.closedCode).toBe("4001");

  // The notice that closed the laptop's socket has been handled; the phone's socket still counts.
  expect(phoneCounter.socket.isClosed()).toBe(false);
  const now = Number(await phoneCounter.page.locator("#live-count").textContent());
  await phoneCounter.page.getByRole("button", { name: "+1" }).click();
  await phoneCounter.page.locator("#live-count", { hasText: exactly(now + 1) }).waitFor();
  expect(await phoneCounter.page.locator("#live-counter").getAttribute("data-closed-code")).toBeNull();

  releaseLaptop();
  await laptopCounter.page.waitForURL(`${stack.authUrl}/auth/signed-out?**`);
  await laptopCounter.page.goto(`${stack.consumerUrl}/live`);
  await laptopCounter.page.waitForURL(SIGN_IN_PAGE);
  await Promise.all([laptop.close(), phone.close()]);
});
