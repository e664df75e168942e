/**
 * Flow 6: one person hammering /auth/login gets 20 sign-in pages a minute, then the auth
 * worker's readable 429 page with a `Retry-After` that the page text repeats.
 */
import { setTimeout as delay } from "node:timers/promises";
import { expect, it } from "vitest";
import { newPerson, screenshot, stack, textOf, useBrowser } from "./support/browser";

const LIMIT = 20; // AUTH_RATE_LIMITS.login: 20 per 60 s, fixed windows aligned to the epoch
const WINDOW_MS = 60_000;

const browser = useBrowser();

it("hammering /auth/login past its limit shows the 429 page with Retry-After", async () => {
  // Start inside one window, so exactly LIMIT are admitted (a window edge would reset the count).
  while (WINDOW_MS - (Date.now() % WINDOW_MS) < 15_000) await delay(200);

  const context = await newPerson(browser());
  const page = await context.newPage();
  const login = `${stack.authUrl}/auth/login`;
  let admitted = 0;
  let refused = null;
  for (let attempt = 1; attempt <= 2 * LIMIT + 1 && !refused; attempt++) {
    const response = await page.goto(login);
    if (response?.status() === 429) refused = response;
    else admitted++;
  }
  expect(admitted).toBe(LIMIT);
  expect(refused).not.toBeNull();
  expect(refused!.url()).toBe(login);

  const headers = refused!.headers();
  expect(headers["content-type"]).toContain("text/html");
  const retryAfter = Number(headers["retry-after"]);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  expect(headers["ratelimit-policy"]).toContain("q=20;w=60");
  await page.getByRole("heading", { name: "Too many requests" }).waitFor();
  expect(await textOf(page)).toContain(`Too many attempts. Please wait ${retryAfter} seconds and try again.`);
  await screenshot(page, "6-rate-limited");
  await context.close();
});
