/**
 * Issue 19: signing in again in the same browser replaces that browser's old session, and the old
 * session's open tabs follow: the same person → the consumer's tab reloads into the new session;
 * another person → it goes to the auth worker's signed-out page (it never turns into their page).
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { newPerson, pickDemoUser, stack, textOf, useBrowser } from "./support/browser";

const browser = useBrowser();
const DASHBOARD = `${stack.consumerUrl}/dashboard`;

/** Resolves once the page's live script has joined its session's channel (the object said `live.ready`). */
function joined(page: Page): Promise<void> {
  return new Promise((resolve) => {
    page.on("websocket", (ws) => {
      ws.on("framereceived", (frame) => {
        if (String(frame.payload).includes('"live.ready"')) resolve();
      });
    });
  });
}

/** Signs `user` into Acme in a new tab of the same browser, through the auth worker's login, back to the dashboard. */
async function signInAgain(page: Page, user: string): Promise<void> {
  await page.goto(`${stack.authUrl}/auth/login?return_to=${encodeURIComponent(DASHBOARD)}`);
  await pickDemoUser(page, user, "Acme");
  await page.waitForURL(DASHBOARD);
}

it("a second sign-in reloads the old session's tab into the new one; another person's sends it to the signed-out page", async () => {
  const context = await newPerson(browser());
  const tab = await context.newPage();
  let ready = joined(tab);
  await tab.goto(DASHBOARD);
  await pickDemoUser(tab, "Ada Lovelace", "Acme");
  await tab.waitForURL(DASHBOARD);
  await ready;
  const first = (await context.cookies(stack.authUrl)).find((c) => c.name === "gh_session")?.value;

  // The same person signs in again in another tab: the first tab reloads, into the new session.
  // (Afterwards either tab may lead the browser's one socket: wait for whichever joins.)
  const other = await context.newPage();
  ready = Promise.race([joined(tab), joined(other)]);
  const reloaded = tab.waitForEvent("load");
  await signInAgain(other, "Ada Lovelace");
  await reloaded;
  await ready;
  expect(tab.url()).toBe(DASHBOARD);
  expect(await textOf(tab)).toContain("Hello, Ada Lovelace.");
  const second = (await context.cookies(stack.authUrl)).find((c) => c.name === "gh_session")?.value;
  expect(second).toBeDefined();
  expect(second).not.toBe(first);

  // Another person signs in in this browser: Ada's tab leaves for the signed-out page.
  await signInAgain(await context.newPage(), "Grace Hopper");
  await tab.waitForURL(`${stack.authUrl}/auth/signed-out?**`);
  expect(new URL(tab.url()).searchParams.get("return_to")).toBe(DASHBOARD);
  await context.close();
});
