/**
 * Issue 19, no dead ends, in a real browser against the running workers: each error page is
 * reached from a real flow and its links are followed. Cancel on the provider's sign-in page →
 * the access-denied page, whose "Try again" is the sign-in page again and "Back" the app; a 404 on
 * both workers → "Home"; a 403 on the consumer (another organization's page, an admin page without
 * the role) → another organization, a new sign-in, the sign-out form; a 429 (the login limit of
 * the auth worker, the consumer's quota) → the wait, then "Home". Every page passes axe-core.
 * 503 is not reachable in this stack without stopping a worker: test/security/dead-ends.test.ts
 * and test/consumer/dead-ends.test.ts cover it in workerd.
 */
import type { APIResponse, BrowserContext, Page, Response } from "playwright-core";
import { expect, it } from "vitest";
import { expectAccessible } from "./support/axe";
import {
  consumerAs,
  newPerson,
  pickDemoUser,
  SIGN_IN_PAGE,
  screenshot,
  stack,
  textOf,
  useBrowser,
} from "./support/browser";
import { WindowTally } from "./support/rate-limit";

const browser = useBrowser();

/** The example consumer's quota (workers/example-consumer/quota.ts): calls per user and window (seconds). */
const QUOTA = { limit: 100, window: 600 };

/** A new person whose pages may be checked by axe (the browser ignores CSP; responses keep it). */
function person(): Promise<BrowserContext> {
  return newPerson(browser(), { bypassCSP: true });
}

/** Goes to `url` and returns the navigation's final answer. */
async function open(page: Page, url: string): Promise<Response> {
  const response = await page.goto(url);
  if (!response) throw new Error(`no answer for ${url}`);
  return response;
}

/** The "What you can do" list's link `name`. */
function action(page: Page, name: string) {
  return page.getByRole("navigation", { name: "What you can do" }).getByRole("link", { name, exact: true });
}

/** On the provider's sign-in page: "Cancel and return to the app"; the callback's answer. */
async function cancelSignIn(page: Page): Promise<Response> {
  await page.waitForURL(SIGN_IN_PAGE);
  const answer = page.waitForResponse(
    (r: Response) => r.url().startsWith(`${stack.authUrl}/auth/callback?`) && r.request().isNavigationRequest(),
  );
  await page.getByRole("button", { name: "Cancel and return to the app" }).click();
  return answer;
}

it("cancel at the provider: a 400 page whose Try again signs in again and whose Back returns to the app", async () => {
  const context = await person();
  const page = await context.newPage();
  await page.goto(`${stack.consumerUrl}/dashboard`);
  const cancelled = await cancelSignIn(page);
  expect(cancelled.status()).toBe(400);
  expect(cancelled.headers()["content-type"]).toContain("text/html");
  await page.getByRole("heading", { name: "Sign-in cancelled" }).waitFor();
  expect(await textOf(page)).toContain("The sign-in was cancelled or not allowed.");
  await expectAccessible(page, "access denied");
  await screenshot(page, "19-access-denied");

  // "Try again": the provider's sign-in page again, for the same return_to (the consumer's dashboard).
  await action(page, "Try again").click();
  await page.waitForURL(SIGN_IN_PAGE);
  await pickDemoUser(page, "Ada Lovelace", "Acme");
  await page.waitForURL(`${stack.consumerUrl}/dashboard`);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();

  // "Back": the home of the app the sign-in came from.
  const other = await context.newPage();
  await other.goto(`${stack.authUrl}/auth/login?return_to=${encodeURIComponent(`${stack.consumerUrl}/settings`)}`);
  expect((await cancelSignIn(other)).status()).toBe(400);
  await action(other, "Back").click();
  await other.waitForURL(`${stack.consumerUrl}/`);
  await other.getByRole("heading", { name: "Example consumer" }).waitFor();
  await context.close();
});

it("a 404 on each worker is a page whose Home link works", async () => {
  const context = await person();
  const page = await context.newPage();
  for (const [origin, home] of [
    [stack.authUrl, "Gatehouse"],
    [stack.consumerUrl, "Example consumer"],
  ] as const) {
    const response = await open(page, `${origin}/no/such/page`);
    expect(response.status()).toBe(404);
    expect(response.headers()["content-type"]).toContain("text/html");
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    await expectAccessible(page, `404 of ${origin}`);
    await action(page, "Home").click();
    await page.waitForURL(`${origin}/`);
    await page.getByRole("heading", { name: home }).first().waitFor();
  }
  await context.close();
});

it("a 403 on the consumer links the person's other organization, a new sign-in and a working sign-out", async () => {
  // Grace: a member of acme, an admin of globex.
  const context = await person();
  const { page, status } = await consumerAs(context, "Grace Hopper", "Globex", "/org/acme/admin");
  expect(status).toBe(403);
  await page.getByRole("heading", { name: "Forbidden" }).waitFor();
  expect(await textOf(page)).toContain("Your role in this organization does not allow this.");
  await expectAccessible(page, "consumer 403 (role)");
  await screenshot(page, "19-consumer-forbidden");

  // Switch organization: globex, where she is admin.
  await action(page, "Open globex").click();
  await page.waitForURL(`${stack.consumerUrl}/org/globex/dashboard`);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();

  // Not a member: another organization's page.
  const initech = await open(page, `${stack.consumerUrl}/org/initech/dashboard`);
  expect(initech.status()).toBe(403);
  expect(await textOf(page)).toContain("You are not a member of initech.");
  await expectAccessible(page, "consumer 403 (not a member)");

  // A new sign-in (another account or organization) starts at the provider.
  const fresh = await context.newPage();
  await fresh.goto(`${stack.consumerUrl}/org/initech/dashboard`);
  await action(fresh, "Sign in with another account or organization").click();
  await fresh.waitForURL(SIGN_IN_PAGE);
  await fresh.close();

  // Sign out from the page itself: back home, signed out, and the session is gone.
  await page.getByRole("main").getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${stack.consumerUrl}/`);
  expect(await textOf(page)).toContain("You are not signed in.");
  const me = await context.request.get(`${stack.consumerUrl}/api/me`, {
    headers: { Accept: "application/json" },
    maxRedirects: 0,
  });
  expect(me.status()).toBe(401);
  await context.close();
});

it("the login limit's 429 page says how long to wait and its Home link works", async () => {
  const context = await person();
  const page = await context.newPage();
  const login = `${stack.authUrl}/auth/login`;
  // 20 a minute from one address: keep signing in until refused (a window edge only delays it).
  let refused: Response | null = null;
  for (let attempt = 0; attempt < 61 && !refused; attempt++) {
    const response = await open(page, login);
    if (response.status() === 429) refused = response;
  }
  expect(refused).not.toBeNull();
  const retryAfter = Number(refused!.headers()["retry-after"]);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  await page.getByRole("heading", { name: "Too many requests" }).waitFor();
  expect(await textOf(page)).toContain(`Please wait ${retryAfter === 1 ? "1 second" : `${retryAfter} seconds`}`);
  expect(await action(page, "Try again").getAttribute("href")).toBe("/auth/login");
  await expectAccessible(page, "auth 429");
  await action(page, "Home").click();
  await page.waitForURL(`${stack.authUrl}/`);
  await page.getByRole("heading", { name: "Gatehouse" }).first().waitFor();
  await context.close();
});

it("the consumer's quota: past it, a browser gets a page with the wait; API clients keep the JSON 429", async () => {
  const context = await person();
  const { page } = await consumerAs(context, "Alan Turing", "Acme", "/dashboard");
  const quota = `${stack.consumerUrl}/api/quota`;
  // 100 calls per fixed 10-minute window. A window may end between two calls (the count starts
  // again, here or between the API's 429 and the browser's visit): the limiter's own headers say
  // so, and the calls go on until the limit is reached within one window. Bounded by counts.
  const tally = new WindowTally();
  let refusedPage: Response | null = null;
  for (let round = 0; round < 3 && !refusedPage; round++) {
    let limited: APIResponse | null = null;
    for (let call = 0; call <= 2 * QUOTA.limit && !limited; call++) {
      const res = await context.request.get(quota, { headers: { Accept: "application/json" } });
      if (res.status() !== 429) expect(res.status()).toBe(200);
      tally.observe(res.headers(), res.status() !== 429);
      if (res.status() === 429) limited = res;
    }
    expect(limited).not.toBeNull();
    // Refused once the quota is spent, and not before: exactly `limit` admitted in its window.
    expect(tally.admitted).toBe(QUOTA.limit);
    expect(limited!.headers()["content-type"]).toContain("application/json");
    expect(((await limited!.json()) as { error: string }).error).toBe("rate_limited");

    // A browser opening the route in that window gets the page with the wait; only a window that
    // ended since the API's 429 admits it (then the quota is spent again in the new one).
    const spentIn = tally.windows;
    const visit = await open(page, quota);
    const seenIn = tally.observe(visit.headers(), visit.status() !== 429);
    if (visit.status() === 429) {
      expect(seenIn).toBe(spentIn);
      refusedPage = visit;
    } else {
      expect({ status: visit.status(), seenIn }).toEqual({ status: 200, seenIn: spentIn + 1 });
    }
  }
  expect(refusedPage).not.toBeNull();
  const response = refusedPage!;
  expect(response.headers()["content-type"]).toContain("text/html");
  const retryAfter = Number(response.headers()["retry-after"]);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(response.headers()["ratelimit-policy"]).toContain(`q=${QUOTA.limit};w=${QUOTA.window}`);
  await page.getByRole("heading", { name: "Too many requests" }).waitFor();
  expect(await textOf(page)).toContain(`Please wait ${retryAfter === 1 ? "1 second" : `${retryAfter} seconds`}`);
  await expectAccessible(page, "consumer 429");
  await action(page, "Home").click();
  await page.waitForURL(`${stack.consumerUrl}/`);
  expect(await textOf(page)).toContain("Signed in as");
  await context.close();
});
