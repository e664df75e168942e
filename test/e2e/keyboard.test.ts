/**
 * Issue 19: keyboard only. Signing in from the landing page (Tab to "Sign in", Enter; on the
 * provider's page Tab to a demo user's organization, Enter) and signing another session out on
 * /account/sessions (Tab to its "Sign out", Enter: it leaves the list and its tab signs out live).
 * Focus is found by what it is (role, name, the row it is in), never by counting tabs, and every
 * element reached shows a visible focus outline.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { live, newPerson, SIGN_IN_PAGE, sessionIdOf, signedInTab, stack, useBrowser } from "./support/browser";

const browser = useBrowser();

/** The focused element as a person with a screen reader meets it. */
interface Focused {
  role: string;
  name: string;
  href: string | null;
  /** The text of the list item (card, session row) it is in. */
  item: string | null;
  /** `data-session-id` of the session row it is in. */
  sessionRow: string | null;
  /** Its focus outline is drawn (`:focus-visible`). */
  outlined: boolean;
}

/** The little of the DOM `focused` reads (the Node-side tsconfig has no DOM types). */
interface PageElement {
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  closest(selector: string): PageElement | null;
}
interface PageScope {
  document: { activeElement: PageElement | null; body: PageElement };
  getComputedStyle(element: PageElement): { outlineStyle: string; outlineWidth: string };
}

function focused(page: Page): Promise<Focused | null> {
  return page.evaluate(() => {
    const { document, getComputedStyle } = globalThis as unknown as PageScope;
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const tag = el.tagName.toLowerCase();
    const style = getComputedStyle(el);
    return {
      role: el.getAttribute("role") ?? (tag === "a" ? "link" : tag),
      name: (el.getAttribute("aria-label") ?? el.textContent ?? "").replace(/\s+/g, " ").trim(),
      href: el.getAttribute("href"),
      item: el.closest("li")?.textContent ?? null,
      sessionRow: el.closest("li[data-session-id]")?.getAttribute("data-session-id") ?? null,
      outlined: style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) >= 2,
    };
  });
}

/** Presses Tab until the focused element is the one wanted (at most `limit` presses). */
async function tabTo(page: Page, wanted: (f: Focused) => boolean, what: string, limit = 60): Promise<Focused> {
  const seen: string[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab");
    const now = await focused(page);
    if (now && wanted(now)) return now;
    seen.push(now ? `${now.role} "${now.name}"` : "(nothing)");
  }
  throw new Error(`Tab never reached ${what}; focus went through: ${seen.join(", ")}`);
}

it("signs in with the keyboard only: landing page → provider → signed in", async () => {
  const person = await newPerson(browser());
  const page = await person.newPage();
  await page.goto(`${stack.authUrl}/`);

  // The first stop is the skip link; then on to "Sign in".
  await page.keyboard.press("Tab");
  expect(await focused(page)).toMatchObject({ role: "link", name: "Skip to content", href: "#main" });
  const signIn = await tabTo(page, (f) => f.role === "link" && f.name === "Sign in", 'the "Sign in" link');
  expect(signIn.href).toBe("/auth/login");
  expect(signIn.outlined).toBe(true);
  await page.keyboard.press("Enter");

  await page.waitForURL(SIGN_IN_PAGE);
  const choice = await tabTo(
    page,
    (f) => f.role === "button" && f.name.startsWith("Acme") && (f.item ?? "").includes("Alan Turing"),
    "Alan Turing's Acme button",
  );
  expect(choice.outlined).toBe(true);
  await page.keyboard.press("Enter");

  await page.waitForURL(`${stack.authUrl}/`);
  await page.getByRole("heading", { name: "Signed in as Alan Turing" }).waitFor();
  expect(await page.locator("main").textContent()).toContain("acme — member");
  const me = await person.request.get(`${stack.authUrl}/api/me`, { headers: { Accept: "application/json" } });
  expect(me.status()).toBe(200);
  await person.close();
});

it("signs another session out with the keyboard only: it leaves the list, its tab signs out live", async () => {
  const phone = await newPerson(browser());
  const other = await signedInTab(phone, "Grace Hopper", "Globex");
  const otherSession = await sessionIdOf(other);
  await live(other);

  const laptop = await newPerson(browser());
  const page = await signedInTab(laptop, "Grace Hopper", "Globex");
  await live(page);
  const row = page.locator(`li[data-session-id="${otherSession}"]`);
  expect(await row.count()).toBe(1);

  const button = await tabTo(
    page,
    (f) => f.role === "button" && f.name === "Sign out" && f.sessionRow === otherSession,
    "the other session's Sign out button",
  );
  expect(button.outlined).toBe(true);
  await page.keyboard.press("Enter");

  await page.waitForURL(`${stack.authUrl}/account/sessions?signed_out=1`);
  await other.waitForURL(SIGN_IN_PAGE, { timeout: 5_000 });
  expect(await row.count()).toBe(0);
  expect(await page.locator('li[aria-current="true"]').count()).toBe(1);
  await Promise.all([phone.close(), laptop.close()]);
});
