/**
 * Flow 6: one person hammering /auth/login gets 20 sign-in pages a minute, then the auth
 * worker's readable 429 page with a `Retry-After` that the page text repeats.
 */
import type { Response } from "playwright-core";
import { expect, it } from "vitest";
import { newPerson, screenshot, stack, textOf, useBrowser } from "./support/browser";
import { WindowTally } from "./support/rate-limit";

const LIMIT = 20; // AUTH_RATE_LIMITS.login: 20 per 60 s, fixed windows
const WINDOW = 60;

const browser = useBrowser();

/** The auth worker's own answer to a navigation: the first of its redirects (the 302 to the provider), or itself. */
async function firstAnswer(response: Response): Promise<Response> {
  let request = response.request();
  for (let from = request.redirectedFrom(); from; from = from.redirectedFrom()) request = from;
  const answer = await request.response();
  if (!answer) throw new Error(`no answer for ${request.url()}`);
  return answer;
}

it("hammering /auth/login past its limit shows the 429 page with Retry-After", async () => {
  const context = await newPerson(browser());
  const page = await context.newPage();
  const login = `${stack.authUrl}/auth/login`;
  // Should the window end mid-way, the count starts again: the limiter's own headers say so
  // (support/rate-limit.ts), and the sign-ins go on until it refuses within one window.
  const tally = new WindowTally();
  let refused: Response | null = null;
  for (let attempt = 1; attempt <= 3 * LIMIT + 1 && !refused; attempt++) {
    const response = await page.goto(login);
    if (!response) throw new Error(`no answer for ${login}`);
    const answer = await firstAnswer(response);
    expect(answer.url()).toBe(login);
    const admitted = answer.status() !== 429;
    if (admitted) expect(answer.status()).toBe(302);
    tally.observe(answer.headers(), admitted);
    if (!admitted) refused = response;
  }
  expect(refused).not.toBeNull();
  expect(tally.admitted).toBe(LIMIT); // in the window of the refusal
  expect(refused!.url()).toBe(login);

  const headers = refused!.headers();
  expect(headers["content-type"]).toContain("text/html");
  const retryAfter = Number(headers["retry-after"]);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW).toBe(true);
  expect(headers["ratelimit-policy"]).toContain(`q=${LIMIT};w=${WINDOW}`);
  await page.getByRole("heading", { name: "Too many requests" }).waitFor();
  expect(await textOf(page)).toContain(
    `Too many attempts. Please wait ${retryAfter === 1 ? "1 second" : `${retryAfter} seconds`} and try again.`,
  );
  await screenshot(page, "6-rate-limited");
  await context.close();
});
