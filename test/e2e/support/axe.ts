/**
 * The automated accessibility check of the browser tests: axe-core run inside the page as it is
 * rendered (styles, colour scheme, focusable elements), failing on violations of impact "serious"
 * or "critical" and listing them. axe is injected as a script, which our own CSP refuses, so the
 * page's context must be made with `newPerson(browser, { bypassCSP: true })`: the browser then
 * ignores the policy while the responses still carry it. Nothing here waits on time.
 */
import axe from "axe-core";
import type { Page } from "playwright-core";

/** What fails a page. */
const BLOCKING: ReadonlySet<string> = new Set(["serious", "critical"]);

/** One rule broken on a page, with the elements that break it. */
export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/** What the page's global scope holds once axe is injected (the Node-side tsconfig has no DOM types). */
type AxeGlobal = { axe?: typeof axe; document: axe.ElementContext };

/** The serious and critical violations axe-core finds on the page as it is now. */
export async function accessibilityViolations(page: Page): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => typeof (globalThis as unknown as AxeGlobal).axe === "object"))) {
    await page.addScriptTag({ content: axe.source });
    if (!(await page.evaluate(() => typeof (globalThis as unknown as AxeGlobal).axe === "object"))) {
      throw new Error("axe-core did not load: make the context with newPerson(browser, { bypassCSP: true })");
    }
  }
  const results = await page.evaluate(() =>
    (globalThis as unknown as AxeGlobal).axe!.run((globalThis as unknown as AxeGlobal).document, {
      resultTypes: ["violations"],
    }),
  );
  return results.violations
    .filter((v) => BLOCKING.has(v.impact ?? ""))
    .map((v) => ({
      rule: v.id,
      impact: v.impact ?? "",
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(" ")),
    }));
}

/**
 * Fails (naming the page, listing each rule and its elements) when axe-core finds a serious or
 * critical violation. `colorSchemes`: check the page in each (emulated `prefers-color-scheme`, no
 * reload), then leave the emulation off; without it, the page as it is.
 * @example
 * ```ts
 * const person = await newPerson(browser(), { bypassCSP: true });
 * const page = await signedInTab(person, "Ada Lovelace", "Acme", "/admin");
 * await expectAccessible(page, "admin console", { colorSchemes: ["light", "dark"] });
 * ```
 */
export async function expectAccessible(
  page: Page,
  name: string,
  options: { colorSchemes?: readonly ("light" | "dark")[] } = {},
): Promise<void> {
  const schemes = options.colorSchemes ?? [];
  if (schemes.length === 0) {
    failOn(await accessibilityViolations(page), name);
    return;
  }
  for (const colorScheme of schemes) {
    await page.emulateMedia({ colorScheme });
    failOn(await accessibilityViolations(page), `${name} (${colorScheme})`);
  }
  await page.emulateMedia({ colorScheme: null });
}

/** Throws one line per broken rule: its impact, what it asks for, and the elements that break it. */
function failOn(found: readonly AxeFinding[], page: string): void {
  if (found.length === 0) return;
  const lines = found.map((f) => `- ${f.rule} (${f.impact}): ${f.help}: ${f.targets.join(", ")}`);
  throw new Error(`${page}: ${found.length} serious or critical accessibility violation(s)\n${lines.join("\n")}`);
}
