/**
 * Issue 19, "one look for every page": axe-core, injected into each page of the real workers (the
 * browser bypasses CSP for it; the responses keep theirs), finds no serious or critical violation
 * in the light and the dark scheme: the auth worker's landing page signed out and signed in, its
 * 404, the account pages, the organization console, the local provider's sign-in page and
 * directory, and the example consumer's home, dashboard and settings. Screenshots of the landing,
 * sessions and activity pages (light) go to test-results/e2e for the docs.
 */
import { expect, it } from "vitest";
import { accessibilityViolations, expectAccessible } from "./support/axe";
import {
  live,
  newPerson,
  pickDemoUser,
  SIGN_IN_PAGE,
  screenshot,
  signedInTab,
  stack,
  textOf,
  useBrowser,
} from "./support/browser";

const browser = useBrowser();
const BOTH = { colorSchemes: ["light", "dark"] } as const;
const ACME = "org_01ACME00000000000000000000";
const DOCS = "https://github.com/gatehouse-workers/gatehouse-workers#readme";

const LAPTOP = {
  userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:140.0) Gecko/20100101 Firefox/140.0",
  location: "US;Massachusetts;Cambridge;BOS",
};
const PHONE = {
  userAgent:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
  location: "US;Texas;Houston;IAH",
};

/** The page's computed background (the Node-side tsconfig has no DOM types). */
type Styles = { getComputedStyle(element: unknown): { backgroundColor: string } };

it("the checker sees the page in the scheme asked for, and fails a page with serious violations", async () => {
  const person = await newPerson(browser(), { bypassCSP: true });
  const page = await person.newPage();
  await page.goto(`${stack.authUrl}/`);
  const background = () =>
    page.locator("body").evaluate((body) => (globalThis as unknown as Styles).getComputedStyle(body).backgroundColor);
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await background()).toBe("rgb(13, 17, 23)");
  await page.emulateMedia({ colorScheme: "light" });
  expect(await background()).toBe("rgb(255, 255, 255)");
  expect(await accessibilityViolations(page)).toEqual([]);

  // Break it as a careless change would: an image without a text alternative, a button without a name.
  await page
    .locator("main")
    .evaluate((main) => main.insertAdjacentHTML("beforeend", '<img src="data:,"><button></button>'));
  const found = await accessibilityViolations(page);
  expect(found.map((f) => f.rule).sort()).toEqual(["button-name", "image-alt"]);
  expect(found.every((f) => f.impact === "critical" && f.targets.length === 1)).toBe(true);
  await expect(expectAccessible(page, "a broken page")).rejects.toThrow(/image-alt/);
  await person.close();
});

it("the auth worker's landing page signed out: what it is, where to go; its 404 page", async () => {
  const person = await newPerson(browser(), { bypassCSP: true });
  const page = await person.newPage();
  const res = await page.goto(`${stack.authUrl}/`);
  // The browser ignores it for the checker, but the worker still sends its policy.
  expect(res?.headers()["content-security-policy"]).toContain("default-src");
  await page.getByRole("heading", { name: "Gatehouse", exact: true }).waitFor();
  expect(await textOf(page)).toContain("You are not signed in.");
  const main = page.locator("main");
  for (const [name, href] of [
    ["Sign in", "/auth/login"],
    ["Your sessions", "/account/sessions"],
    ["Account activity", "/account/activity"],
    ["Admin console", "/admin"],
    ["Documentation", DOCS],
  ] as const) {
    expect(await main.getByRole("link", { name, exact: true }).getAttribute("href")).toBe(href);
  }
  // The header: where to go, this page marked, and a way to sign in.
  const nav = page.getByRole("navigation", { name: "Main" });
  expect(await nav.getByRole("link").allInnerTexts()).toEqual(["Home", "Sessions", "Activity", "Console"]);
  expect(await nav.getByRole("link", { name: "Home" }).getAttribute("aria-current")).toBe("page");
  expect(await page.locator("header").getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/auth/login");
  await expectAccessible(page, "the landing page (signed out)", BOTH);
  await page.emulateMedia({ colorScheme: "light" });
  await screenshot(page, "landing");

  const missing = await page.goto(`${stack.authUrl}/no-such-page`);
  expect(missing?.status()).toBe(404);
  await page.locator("header nav").waitFor();
  await expectAccessible(page, "the auth worker's 404 page", BOTH);
  await person.close();
});

it("signed in at the auth worker: the landing page and the organization console", async () => {
  const person = await newPerson(browser(), { bypassCSP: true });
  const page = await signedInTab(person, "Ada Lovelace", "Acme", "/");
  await page.getByRole("heading", { name: "Signed in as Ada Lovelace" }).waitFor();
  const header = page.locator("header");
  expect(await header.textContent()).toContain("Signed in as Ada Lovelace");
  // Signing out is the header's POST with the page's CSRF token.
  const signOut = header.locator('form[method="post"][action="/auth/logout"]');
  expect(await signOut.locator('input[name="_csrf"]').getAttribute("value")).toMatch(/^[\w-]+\.[\w-]+$/);
  expect(await page.locator("main").textContent()).toContain("acme — admin (current)");
  await expectAccessible(page, "the landing page (signed in)", BOTH);

  // A fresh sign-in is recent enough for the console (no step-up).
  await page.goto(`${stack.authUrl}/account/organizations/${ACME}`);
  await page.getByRole("heading", { name: "Session policy" }).waitFor();
  await expectAccessible(page, "the organization console", BOTH);
  await person.close();
});

it("the account pages with two devices (sessions, activity): accessible, and their screenshots", async () => {
  const phone = await newPerson(browser(), PHONE);
  await signedInTab(phone, "Margaret Hamilton", "Continue without an organization");
  const laptop = await newPerson(browser(), { ...LAPTOP, bypassCSP: true });
  const sessions = await signedInTab(laptop, "Margaret Hamilton", "Continue without an organization");
  await live(sessions);
  expect(await sessions.locator("#sessions li").count()).toBe(2);
  expect(await sessions.locator("header").textContent()).toContain("Signed in as Margaret Hamilton");
  expect(
    await sessions
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Sessions" })
      .getAttribute("aria-current"),
  ).toBe("page");
  await expectAccessible(sessions, "/account/sessions", BOTH);
  await sessions.emulateMedia({ colorScheme: "light" });
  await screenshot(sessions, "account-sessions");

  await sessions.goto(`${stack.authUrl}/account/activity`);
  await live(sessions);
  await sessions.locator('li[data-type="session.signed_in"]').first().waitFor();
  await expectAccessible(sessions, "/account/activity", BOTH);
  await sessions.emulateMedia({ colorScheme: "light" });
  await screenshot(sessions, "account-activity");
  await Promise.all([phone.close(), laptop.close()]);
});

it("the local identity provider: its sign-in page and its directory", async () => {
  const person = await newPerson(browser(), { bypassCSP: true });
  const page = await person.newPage();
  await page.goto(`${stack.authUrl}/auth/login`);
  await page.waitForURL(SIGN_IN_PAGE);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await expectAccessible(page, "the provider's sign-in page", BOTH);

  await page.goto(`${stack.idpUrl}/`);
  await page.getByRole("heading", { name: "Directory" }).waitFor();
  await expectAccessible(page, "the provider's directory", BOTH);
  await person.close();
});

it("the example consumer: home, dashboard and settings", async () => {
  const person = await newPerson(browser(), { bypassCSP: true });
  const page = await person.newPage();
  await page.goto(`${stack.consumerUrl}/`);
  await page.getByText("You are not signed in.").waitFor();
  await expectAccessible(page, "the consumer's home (signed out)", BOTH);

  await page.goto(`${stack.consumerUrl}/dashboard`);
  await pickDemoUser(page, "Grace Hopper", "Globex");
  await page.waitForURL(`${stack.consumerUrl}/dashboard`);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  const header = page.locator("header");
  expect(await header.textContent()).toContain("Signed in as Grace Hopper");
  expect(await header.locator('form[method="post"]').getAttribute("action")).toBe("/logout");
  await expectAccessible(page, "the consumer's dashboard", BOTH);

  await page.goto(`${stack.consumerUrl}/`);
  await page.getByText("Signed in as Grace Hopper.").waitFor();
  await expectAccessible(page, "the consumer's home (signed in)", BOTH);

  await page.goto(`${stack.consumerUrl}/settings`);
  await page.getByRole("heading", { name: "Settings" }).waitFor();
  await expectAccessible(page, "the consumer's settings", BOTH);
  await person.close();
});
