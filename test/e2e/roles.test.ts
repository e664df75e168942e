import { expect, it } from "vitest";
import { consumerAs, newPerson, screenshot, stack, textOf, useBrowser } from "./support/browser";

const browser = useBrowser();

/** Opens `path` on the consumer signed out, signs in as `user` into `organization`, returns the page's final answer. */
async function openAs(user: string, organization: string, path: string) {
  const context = await newPerson(browser());
  return { context, ...(await consumerAs(context, user, organization, path)) };
}

it("shows 403 to a member of acme and the admin page to an admin of acme", async () => {
  const alan = await openAs("Alan Turing", "Acme", "/org/acme/admin");
  expect(alan.status).toBe(403);
  await alan.page.getByRole("heading", { name: "Forbidden" }).waitFor();
  expect(await textOf(alan.page)).toContain("Your role in this organization does not allow this.");
  await screenshot(alan.page, "5-member-forbidden");

  const ada = await openAs("Ada Lovelace", "Acme", "/org/acme/admin");
  expect(ada.status).toBe(200);
  await ada.page.getByRole("heading", { name: "Admin of acme" }).waitFor();
  expect(await textOf(ada.page)).toContain("Ada Lovelace may manage this organization.");
  await screenshot(ada.page, "5-admin");
  await Promise.all([alan.context.close(), ada.context.close()]);
});

it("takes the organization from the path, not from the session", async () => {
  // Grace signs in under Globex, where she is admin; in acme she is a member.
  const grace = await openAs("Grace Hopper", "Globex", "/org/acme/admin");
  expect(grace.status).toBe(403);
  expect(await textOf(grace.page)).toContain("Your role in this organization does not allow this.");
  const globex = await grace.page.goto(`${stack.consumerUrl}/org/globex/admin`);
  expect(globex?.status()).toBe(200);
  await grace.page.getByRole("heading", { name: "Admin of globex" }).waitFor();
  await grace.context.close();
});
