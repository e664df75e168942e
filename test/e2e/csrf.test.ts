import { expect, it } from "vitest";
import { apiMeStatus, newPerson, screenshot, signedInTab, stack, textOf, useBrowser } from "./support/browser";

const browser = useBrowser();

it("a form post without its CSRF token is refused with a readable page; with the token it succeeds", async () => {
  const [mine, other] = [await newPerson(browser()), await newPerson(browser())];
  const otherTab = await signedInTab(other, "Grace Hopper", "Acme");
  const otherSession = await otherTab.locator("#account").getAttribute("data-session-id");
  const page = await signedInTab(mine, "Grace Hopper", "Acme");
  // The session's own "Sign out" form (a new device also carries "this wasn't me").
  const revokeForm = page.locator(`li[data-session-id="${otherSession}"] form[action$="/revoke"]`);
  await revokeForm.waitFor();

  // Without the token: the browser posts the very same form, minus its hidden _csrf field.
  expect(await revokeForm.locator('input[name="_csrf"]').count()).toBe(1);
  await revokeForm.evaluate((form) => form.querySelector('input[name="_csrf"]')?.remove());
  const refused = page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/revoke"));
  await revokeForm.getByRole("button", { name: "Sign out", exact: true }).click();
  expect((await refused).status()).toBe(403);
  await page.getByRole("heading", { name: "Request refused" }).waitFor();
  const text = await textOf(page);
  expect(text).toContain("The form has no security token. Reload the page and try again.");
  expect(text).toContain("csrf_failed");
  expect(text).not.toMatch(/at .*\.ts:\d+|Error:\s+at /); // a page for people, no stack
  expect(await apiMeStatus(other, stack.authUrl)).toBe(200); // nothing was revoked
  await screenshot(page, "4-csrf-refused");

  // With the token: the unchanged form signs the other session out.
  await page.goto(`${stack.authUrl}/account/sessions`);
  const accepted = page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/revoke"));
  await page
    .locator(`li[data-session-id="${otherSession}"] form[action$="/revoke"]`)
    .getByRole("button", { name: "Sign out", exact: true })
    .click();
  expect((await accepted).status()).toBe(303);
  await page.waitForURL(`${stack.authUrl}/account/sessions?signed_out=1`);
  expect(await textOf(page)).toContain("Signed out 1 session.");
  expect(await page.locator(`li[data-session-id="${otherSession}"]`).count()).toBe(0);
  expect(await apiMeStatus(other, stack.authUrl)).toBe(401);
  expect(await apiMeStatus(mine, stack.authUrl)).toBe(200);
  await screenshot(page, "4-csrf-accepted");
  await Promise.all([mine.close(), other.close()]);
});
