/**
 * Flow 3: the same person in two tabs on two sessions (two browser contexts). Revoking tab B's
 * session from tab A's /account/sessions signs tab B out live, through its socket, within one
 * second and without a reload; then "Sign out everywhere else" from a third session ends the
 * others and leaves that tab signed in.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import {
  apiMeStatus,
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

const browser = useBrowser();

/** The two browser globals the check below reads (the Node-side tsconfig has no DOM library). */
interface PageGlobals {
  document: { getElementById(id: string): { hidden: boolean; textContent: string | null } | null };
  location: { pathname: string };
}

/**
 * "notice" once the tab shows "You were signed out", "navigated" if it has already left for the
 * login; rejects after `timeout` ms.
 */
async function signedOutNotice(page: Page, timeout: number): Promise<string> {
  const handle = await page.waitForFunction(
    () => {
      const { document, location } = globalThis as unknown as PageGlobals;
      const notice = document.getElementById("signed-out");
      if (notice && !notice.hidden && notice.textContent?.includes("You were signed out")) return "notice";
      return location.pathname === "/account/sessions" ? false : "navigated";
    },
    undefined,
    { polling: 25, timeout },
  );
  return String(await handle.jsonValue());
}

it("revoking tab B from tab A signs B out live within a second; sign out everywhere else keeps this tab", async () => {
  const [contextA, contextB, contextC] = [
    await newPerson(browser()),
    await newPerson(browser()),
    await newPerson(browser()),
  ];
  const tabA = await signedInTab(contextA, "Ada Lovelace", "Acme");
  const tabB = await signedInTab(contextB, "Ada Lovelace", "Acme");
  await live(tabB);
  const sessionB = await sessionIdOf(tabB);
  expect(await sessionIdOf(tabA)).not.toBe(sessionB);

  await tabA.reload();
  await live(tabA);
  const rowB = tabA.locator(`li[data-session-id="${sessionB}"]`);
  await rowB.waitFor();

  const reloadsOfB: string[] = [];
  tabB.on("framenavigated", (frame) => {
    if (frame === tabB.mainFrame()) reloadsOfB.push(frame.url());
  });
  const noticeSeen = signedOutNotice(tabB, 1_000); // the one-second budget starts at the click
  await rowB.getByRole("button", { name: "Sign out", exact: true }).click();
  const how = await noticeSeen;
  expect(how).toBe("notice"); // shown on the page B already had, before it goes anywhere
  expect(reloadsOfB).toEqual([]);
  await screenshot(tabB, "3-live-signed-out");

  // Tab A: back on its list with a confirmation, B's row gone. Tab B: off to sign in again.
  await tabA.waitForURL(`${stack.authUrl}/account/sessions?signed_out=1`);
  expect(await textOf(tabA)).toContain("Signed out 1 session.");
  expect(await rowB.count()).toBe(0);
  await tabB.waitForURL(SIGN_IN_PAGE);
  expect(await apiMeStatus(contextB, stack.authUrl)).toBe(401);

  // A third session signs out every other one (tab A among them) and stays signed in itself.
  const tabC = await signedInTab(contextC, "Ada Lovelace", "Acme");
  const sessionC = await sessionIdOf(tabC);
  await live(tabA);
  const aSignedOut = signedOutNotice(tabA, 5_000);
  await tabC.getByRole("button", { name: "Sign out everywhere else" }).click();
  await tabC.waitForURL(/\/account\/sessions\?signed_out=\d+$/);
  await aSignedOut;
  const text = await textOf(tabC);
  expect(text).toMatch(/Signed out \d+ sessions?\./);
  expect(text).toContain("Signed in as Ada Lovelace");
  expect(text).toContain("this device");
  expect(text).toContain("You are not signed in anywhere else.");
  expect(await tabC.locator("#sessions li").count()).toBe(1);
  expect(await sessionIdOf(tabC)).toBe(sessionC);
  expect(await apiMeStatus(contextC, stack.authUrl)).toBe(200);
  expect(await apiMeStatus(contextA, stack.authUrl)).toBe(401);
  await screenshot(tabC, "3-sign-out-everywhere-else");
  await Promise.all([contextA.close(), contextB.close(), contextC.close()]);
});
