import { expect, it } from "vitest";
import {
  apiMeStatus,
  newPerson,
  pickDemoUser,
  SIGN_IN_PAGE,
  screenshot,
  stack,
  textOf,
  useBrowser,
} from "./support/browser";

const browser = useBrowser();

it("logout ends the session, and Back asks to sign in again instead of showing the page", async () => {
  const context = await newPerson(browser());
  const page = await context.newPage();
  await page.goto(`${stack.consumerUrl}/dashboard`);
  await pickDemoUser(page, "Ada Lovelace", "Acme");
  await page.waitForURL(`${stack.consumerUrl}/dashboard`);
  expect(await textOf(page)).toContain("Hello, Ada Lovelace.");
  const cookie = (await context.cookies(stack.consumerUrl)).find((c) => c.name === "gh_session");
  expect(cookie).toBeDefined();

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${stack.consumerUrl}/`);
  await page.getByText("You are not signed in.").waitFor();
  // Ended on the server: the old cookie no longer works anywhere.
  expect(await apiMeStatus(context, stack.consumerUrl, `gh_session=${cookie!.value}`)).toBe(401);

  await page.goBack();
  await page.waitForURL(SIGN_IN_PAGE);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  expect(await textOf(page)).not.toContain("Hello, Ada Lovelace");
  await screenshot(page, "2-logout-back");
  await context.close();
});
