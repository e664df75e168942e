import { expect, it } from "vitest";
import { newPerson, pickDemoUser, SIGN_IN_PAGE, screenshot, stack, textOf, useBrowser } from "./support/browser";

const browser = useBrowser();

it("a protected page redirects to sign-in and lands back on it, signed in, name and organization shown", async () => {
  const context = await newPerson(browser());
  const page = await context.newPage();
  const visited: string[] = [];
  page.on("request", (request) => {
    if (request.isNavigationRequest()) visited.push(request.url());
  });

  await page.goto(`${stack.consumerUrl}/dashboard`);
  await page.waitForURL(SIGN_IN_PAGE);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  // The way there: the consumer's guard sent the browser to the auth worker's login, naming the page.
  const login = `${stack.authUrl}/auth/login?return_to=${encodeURIComponent(`${stack.consumerUrl}/dashboard`)}`;
  expect(visited).toContain(login);

  await pickDemoUser(page, "Ada Lovelace", "Acme");
  await page.waitForURL(`${stack.consumerUrl}/dashboard`);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  const text = await textOf(page);
  expect(text).toContain("Hello, Ada Lovelace.");
  expect(text).toContain("Organization: acme (role: admin)");
  expect((await context.cookies(stack.consumerUrl)).map((c) => c.name)).toContain("gh_session");
  await screenshot(page, "1-sign-in");
  await context.close();
});
