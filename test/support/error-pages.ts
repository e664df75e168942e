/**
 * Reading an error page as a person would (issue 19, no dead ends): the links of its
 * "What you can do" list, its forms, and a check that nothing internal (a stack, a file path)
 * reached the body. Shared by the auth worker's and the consumer's workerd tests.
 */
import { expect } from "vitest";
import { decodeAttribute } from "../../client-sdk/html/escape";

export const BROWSER = { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
export const JSON_CLIENT = { Accept: "application/json" };

export interface PageLink {
  label: string;
  href: string;
}

/** The links of the page's "What you can do" list, hrefs decoded, in order. */
export function actionLinks(html: string): PageLink[] {
  const nav = /<nav aria-label="What you can do">([\s\S]*?)<\/nav>/.exec(html)?.[1];
  expect(nav, "the page has a 'What you can do' list").toBeDefined();
  return [...nav!.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)].map(([, href, label]) => ({
    href: decodeAttribute(href!),
    label: decodeAttribute(label!),
  }));
}

/** The href of the link labelled `label` (it must be there). */
export function linkTo(html: string, label: string): string {
  const link = actionLinks(html).find((l) => l.label === label);
  expect(link, `a "${label}" link in ${JSON.stringify(actionLinks(html))}`).toBeDefined();
  return link!.href;
}

/** Every link is a same-origin path (one slash) or on one of `origins`; none is `javascript:` or `//host`. */
export function expectSafeLinks(html: string, origins: readonly string[] = []): void {
  for (const { href } of actionLinks(html)) {
    const sameOrigin = href.startsWith("/") && !href.startsWith("//") && !href.includes("\\");
    const listed = origins.some((o) => href === o || href.startsWith(`${o}/`));
    expect(sameOrigin || listed, `link ${href}`).toBe(true);
  }
}

/** No stack trace, file path or module path in an answer's body. */
export function expectNoInternals(body: string): void {
  expect(body).not.toMatch(/\bat .+\.(ts|js):\d+|node_modules|\/work\/|Error: .*\n\s+at /);
}

/** An HTML answer: the status, a text/html type, the body. */
export async function htmlOf(res: Response, status: number): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get("Content-Type")).toContain("text/html");
  const body = await res.text();
  expectNoInternals(body);
  return body;
}

/** A JSON answer: the status and `{ error, message }` (string message; a limiter adds `retryAfter`). */
export async function jsonOf(res: Response, status: number): Promise<{ error: string; message: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get("Content-Type")).toContain("application/json");
  const text = await res.text();
  expectNoInternals(text);
  const body = JSON.parse(text) as { error: string; message: string };
  expect(typeof body.message).toBe("string");
  return body;
}
