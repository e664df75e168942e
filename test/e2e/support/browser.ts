/**
 * What every browser flow shares: Chromium (npm's @sparticuz/chromium) driven by playwright-core
 * (headless, no sandbox, no background traffic, no flag that weakens origin checks), one browser context per person, signing in by clicking a demo
 * user on the local identity provider's page, and a screenshot of each flow's final state.
 * Waits are on URLs and selectors only; nothing here sleeps.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page, type Response } from "playwright-core";
import { afterAll, beforeAll, inject } from "vitest";

export const stack = inject("e2e");

/** The provider's hosted sign-in page (`GET /user_management/authorize?…`). */
export const SIGN_IN_PAGE = `${stack.idpUrl}/user_management/authorize?**`;

/** One headless browser for the file: launched before its tests, closed after. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());
  return () => {
    if (!browser) throw new Error("the browser is not launched yet");
    return browser;
  };
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: stack.chromium.executablePath,
    headless: true,
    args: stack.chromium.args,
  });
}

/**
 * A new browser context: its own cookies, i.e. its own sessions, and its own client address.
 * The auth worker's rate limits key on `CF-Connecting-IP`, which Cloudflare's edge sets; wrangler
 * dev sets it to the loopback address unless the request carries one, so every person here would
 * share one login budget. Each gets an address of its own, as on the real network.
 * A "device" may also say which browser it is (`userAgent`) and where it is (`location`:
 * `country;region;city;colo`, read by the worker because the stack sets GATEHOUSE_DEV_LOCATION_HEADER).
 * `bypassCSP`: the browser ignores the pages' CSP, so a test can inject a checker (support/axe.ts);
 * the responses still carry their CSP headers.
 */
export function newPerson(
  browser: Browser,
  device: { userAgent?: string; location?: string; bypassCSP?: boolean } = {},
): Promise<BrowserContext> {
  // Documentation range, a /64 of its own (the auth routes count an IPv6 client by its /64).
  const address = `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}::1`;
  return browser.newContext({
    extraHTTPHeaders: {
      "CF-Connecting-IP": address,
      ...(device.location ? { "X-Gatehouse-Dev-Location": device.location } : {}),
    },
    ...(device.userAgent ? { userAgent: device.userAgent } : {}),
    ...(device.bypassCSP ? { bypassCSP: true } : {}),
    viewport: { width: 900, height: 700 },
  });
}

/** On the provider's sign-in page: clicks the button of `user` (e.g. "Ada Lovelace") for `organization` ("Acme"). */
export async function pickDemoUser(page: Page, user: string, organization: string): Promise<void> {
  await page.waitForURL(SIGN_IN_PAGE);
  const card = page.locator("li", { hasText: user });
  await card.getByRole("button", { name: organization }).click();
}

/** Signs a new tab in on the auth worker and leaves it on `path` (default: the sessions page). */
export async function signedInTab(
  context: BrowserContext,
  user: string,
  organization: string,
  path = "/account/sessions",
): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${stack.authUrl}/auth/login?return_to=${encodeURIComponent(path)}`);
  await pickDemoUser(page, user, organization);
  await page.waitForURL(`${stack.authUrl}${path}`);
  return page;
}

/** The page's text as rendered: what the person sees (hidden elements left out). */
export function textOf(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point; hidden notices must not count
  return page.locator("body").innerText();
}

/** Saves `test-results/e2e/<name>.png` and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(stack.screenshotDir, { recursive: true });
  const path = join(stack.screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Status of `GET <origin>/api/me` as a JSON client with the context's cookies (200 signed in, 401 not). */
export async function apiMeStatus(context: BrowserContext, origin: string, cookie?: string): Promise<number> {
  const res = await context.request.get(`${origin}/api/me`, {
    headers: { Accept: "application/json", ...(cookie ? { Cookie: cookie } : {}) },
    maxRedirects: 0,
  });
  return res.status();
}

/** The tab's live script has joined the user's channel (an account page says it updates live). */
export async function live(page: Page): Promise<void> {
  await page.locator("#live-status", { hasText: "updates live" }).waitFor();
}

/** The session id the account page was rendered for. */
export async function sessionIdOf(page: Page): Promise<string> {
  const id = await page.locator("#account").getAttribute("data-session-id");
  if (!id || !/^[0-9a-f]{64}$/.test(id)) throw new Error(`no session id on the page: ${id}`);
  return id;
}

/**
 * Opens `path` on the example consumer signed out, signs in there as `user` into `organization`
 * through the provider's page, and returns the page with the status of its final answer.
 */
export async function consumerAs(
  context: BrowserContext,
  user: string,
  organization: string,
  path: string,
): Promise<{ page: Page; status: number }> {
  const page = await context.newPage();
  const target = `${stack.consumerUrl}${path}`;
  await page.goto(target);
  await page.waitForURL(SIGN_IN_PAGE);
  const landed = page.waitForResponse((r: Response) => r.url() === target && r.request().isNavigationRequest());
  await pickDemoUser(page, user, organization);
  const response = await landed;
  await page.waitForURL(target);
  return { page, status: response.status() };
}
