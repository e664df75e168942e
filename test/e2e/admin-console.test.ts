/**
 * Flow 10 (issue 19): the admin console in a real browser. An operator (Ada, an admin of the
 * operators' organization Acme, freshly signed in) finds a person by email, sees their live
 * session with its device and place, signs it out with the form (no script needed), and is shown
 * the receipt; the person's open tab, on another "device", signs out live. Break glass: the admin
 * token opens a console session marked on every page, and ending it closes the console.
 */
import { expect, it } from "vitest";
import { expectAccessible } from "./support/axe";
import { live, newPerson, screenshot, sessionIdOf, signedInTab, stack, textOf, useBrowser } from "./support/browser";

const browser = useBrowser();

it("an operator signs a person's session out from the console; the person's tab signs out live", async () => {
  const victimContext = await newPerson(browser(), {
    userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:140.0) Gecko/20100101 Firefox/140.0",
    location: "PT;Lisbon;Lisbon;LIS",
  });
  const victim = await signedInTab(victimContext, "Alan Turing", "Acme");
  await live(victim);
  // Other flows of the run may have signed Alan in too: this tab's session is the one to find.
  const victimSession = await sessionIdOf(victim);

  // The CSP bypass only lets the test inject axe-core; the workers still send their CSP.
  const operatorContext = await newPerson(browser(), { bypassCSP: true });
  const consolePage = await signedInTab(operatorContext, "Ada Lovelace", "Acme", "/admin");
  expect(await textOf(consolePage)).toContain("Operating as ada@acme.test");
  await expectAccessible(consolePage, "admin console home", { colorSchemes: ["light", "dark"] });
  await consolePage.getByLabel("Email or user id").fill("alan@acme.test");
  await consolePage.getByRole("button", { name: "Search" }).click();
  await consolePage.waitForURL(/\/admin\/console\/users\//);
  const row = consolePage.locator(`#sessions tbody tr[data-session-id="${victimSession}"]`);
  await row.waitFor(); // rendered with the page; no one-second poll of the DOM
  expect(await row.count()).toBe(1);
  expect(await row.textContent()).toContain("Lisbon, PT (LIS)");
  expect(await row.textContent()).toContain("Firefox 140 on macOS");
  await screenshot(consolePage, "admin-console");
  await expectAccessible(consolePage, "admin console person", { colorSchemes: ["light", "dark"] });

  await row.getByRole("button", { name: /Sign out/ }).click();
  await consolePage.waitForURL(/\/admin\/console\/receipts\/rcpt\.u\./);
  expect(await textOf(consolePage)).toMatch(/Sessions signed out\s+1/);
  await expectAccessible(consolePage, "admin console receipt");

  // The person's tab, on the other device, hears it and leaves.
  await victim.locator("#signed-out", { hasText: "You were signed out" }).waitFor({ timeout: 5_000 });
});

it("break glass: the admin token opens a console session marked on every page; ending it closes the console", async () => {
  const context = await newPerson(browser(), { bypassCSP: true });
  const page = await context.newPage();
  await page.goto(`${stack.authUrl}/admin`);
  await expectAccessible(page, "admin console gate", { colorSchemes: ["light", "dark"] });
  await page.getByLabel("Admin token").fill(stack.adminToken);
  await page.getByRole("button", { name: "Open the console" }).click();
  await page.waitForURL(`${stack.authUrl}/admin`);
  expect(await textOf(page)).toContain("Break-glass session");
  expect(await textOf(page)).toMatch(/break-glass:admin opened a break-glass session/);
  await page.getByRole("button", { name: "End the break-glass session" }).click();
  await page.waitForURL(`${stack.authUrl}/admin`);
  expect(await page.getByLabel("Admin token").count()).toBe(1);
});
