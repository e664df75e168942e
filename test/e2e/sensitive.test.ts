/**
 * Flow 9 (issue 18): sensitive actions in a real browser. An hour-old sign-in that opens the
 * organization console is sent to the provider to sign in again ("Sign in again to continue"),
 * comes back to the console and saves the policy. An impersonated session (armed at the local
 * provider) shows the banner on the consumer's page and the auth worker's, and is refused when it
 * tries to sign out the person's other sessions.
 */
import { expect, it } from "vitest";
import {
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
const ADA = "user_01ADALOVELACE0000000000000";
const ACME = "org_01ACME00000000000000000000";
const CONSOLE = `/account/organizations/${ACME}`;

it("step-up: an hour-old sign-in re-authenticates at the provider and comes back to the console", async () => {
  const context = await newPerson(browser());
  const page = await context.newPage();
  // Signed in an hour ago: the provider's code is minted with an old auth_time (its test control).
  await page.goto(`${stack.authUrl}/auth/login?organization_id=${ACME}&return_to=${encodeURIComponent(CONSOLE)}`);
  await page.waitForURL(SIGN_IN_PAGE);
  const authorize = new URL(page.url());
  const minted = await fetch(`${stack.idpUrl}/__local/codes`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      user_id: ADA,
      organization_id: ACME,
      state: authorize.searchParams.get("state"),
      code_challenge: authorize.searchParams.get("code_challenge"),
      redirect_uri: authorize.searchParams.get("redirect_uri"),
      auth_time: Math.floor(Date.now() / 1000) - 3600,
    }),
  });
  const { redirect_url } = (await minted.json()) as { redirect_url: string };
  await page.goto(redirect_url);

  // The console wants a sign-in of the last five minutes: off to the provider, asked to sign in again.
  await page.waitForURL(SIGN_IN_PAGE);
  expect(new URL(page.url()).searchParams.get("max_age")).toBe("300");
  await page.getByRole("heading", { name: "Sign in again to continue" }).waitFor();
  await screenshot(page, "9-step-up-sign-in-again");
  await pickDemoUser(page, "Ada Lovelace", "Acme");
  await page.waitForURL(`${stack.authUrl}${CONSOLE}`);
  await page.getByRole("heading", { name: "Session policy" }).waitFor();

  // Back at the action: it works now.
  await page.locator('input[name="maxSessions"]').fill("7");
  await page.getByRole("button", { name: "Save policy" }).click();
  await page.waitForURL(`${stack.authUrl}${CONSOLE}?done=policy`);
  expect(await textOf(page)).toContain("at most 7 sessions per person");
  await page.getByRole("button", { name: "Use the default policy" }).click();
  await page.waitForURL(`${stack.authUrl}${CONSOLE}?done=policy`);
  await screenshot(page, "9-step-up-back-at-the-action");
  await context.close();
});

it("impersonation: the banner on every page, and no signing out the person's other sessions", async () => {
  const own = await newPerson(browser());
  await signedInTab(own, "Ada Lovelace", "Acme");

  const armed = await fetch(`${stack.idpUrl}/__local/impersonations`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user_id: ADA, impersonator_email: "support@example.test", reason: "Ticket 42" }),
  });
  expect(armed.status).toBe(201);
  const support = await newPerson(browser());
  const consumer = await support.newPage();
  await consumer.goto(`${stack.consumerUrl}/dashboard`);
  await pickDemoUser(consumer, "Ada Lovelace", "Acme");
  await consumer.waitForURL(`${stack.consumerUrl}/dashboard`);
  const banner = consumer.locator("[data-gatehouse-impersonation]");
  expect(await banner.textContent()).toContain("support@example.test is signed in as this person");
  await screenshot(consumer, "9-impersonation-consumer");

  const account = await support.newPage();
  await account.goto(`${stack.authUrl}/account/sessions`);
  expect(await account.locator("[data-gatehouse-impersonation]").textContent()).toContain("Ticket 42");
  const refused = account.waitForResponse((r) => r.url().endsWith("/revoke-others"));
  await account.getByRole("button", { name: "Sign out everywhere else" }).click();
  expect((await refused).status()).toBe(403);
  expect(await textOf(account)).toContain("impersonation_forbidden");
  await screenshot(account, "9-impersonation-refused");
  // Ada's own session is still there.
  const mine = await own.request.get(`${stack.authUrl}/api/me`, { headers: { Accept: "application/json" } });
  expect(mine.status()).toBe(200);
  await Promise.all([own.close(), support.close()]);
});
