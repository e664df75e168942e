/**
 * Issue 25 item 4 (low): a page requested with `Host: evil.example` named
 * `http://evil.example/live.js`. Every absolute URL of ours now comes from the configured public
 * origin (`AUTH_REDIRECT_URL`'s), never from the request: the walk below asks each page through
 * `http://evil.example/…` (what workerd makes of that Host) and reads every absolute URL in the
 * body and the headers (Location, CSP, …). The same origin is "this site" of the origin checks, so
 * a request naming another host cannot make that host's `Origin` count as ours.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DOCS_URL } from "../../workers/auth/app/home";
import { cookieHeader, cookiesFrom, idp, ORIGIN, send, signedInJar } from "./helpers/world";

const EVIL = "http://evil.example";
/** Other sites our pages may name: the identity provider (sign-in) and the docs. */
const THIRD_PARTIES = new Set([new URL(idp.url).origin, new URL(DOCS_URL).origin]);
const OURS = new Set([ORIGIN, ORIGIN.replace(/^https:/, "wss:")]);

/** Every absolute http(s)/ws(s) URL in a text. */
function absoluteUrls(text: string): string[] {
  return [...text.matchAll(/\b(?:https?|wss?):\/\/[^\s"'<>;,)]+/gi)].map((m) => m[0]);
}

/** Asks `path` as `Host: evil.example` would; returns the absolute URLs it names and the body. */
async function namedBy(path: string, headers: Record<string, string> = {}): Promise<{ urls: string[]; res: Response }> {
  const res = await send(`${EVIL}${path}`, { headers: { Accept: "text/html", ...headers } });
  const body = await res.clone().text();
  const headerText = [...res.headers].map(([name, value]) => `${name}: ${value}`).join("\n");
  return { urls: [...absoluteUrls(body), ...absoluteUrls(headerText)], res };
}

function expectOnlyConfigured(path: string, urls: readonly string[]): void {
  for (const url of urls) {
    const { origin } = new URL(url);
    expect(OURS.has(origin) || THIRD_PARTIES.has(origin), `${path} names ${url}`).toBe(true);
  }
}

/** A break-glass console session's cookies (the admin token typed into the gate). */
async function consoleJar(): Promise<Record<string, string>> {
  const jar: Record<string, string> = {};
  const gate = await send("/admin", { headers: { Accept: "text/html" } });
  cookiesFrom(gate, jar);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await gate.text())![1]!;
  const opened = await send("/admin/console/break-glass", {
    method: "POST",
    headers: { Cookie: cookieHeader(jar), Origin: ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrf, token: env.ADMIN_API_TOKEN }).toString(),
  });
  expect(opened.status).toBe(303);
  return cookiesFrom(opened, jar);
}

describe("issue 25 item 4: absolute URLs never come from the Host header", () => {
  it("the signed-in home page names the live script, channel and signed-out page on the configured origin", async () => {
    const jar = await signedInJar();
    const { urls, res } = await namedBy("/", { Cookie: cookieHeader(jar) });
    expect(res.status).toBe(200);
    expect(urls).toContain(`${ORIGIN}/live.js`);
    expect(urls).toContain(`${ORIGIN}/auth/signed-out`);
    expect(urls.some((u) => u.startsWith("wss://auth.example.com/parties/user-sessions/"))).toBe(true);
    expectOnlyConfigured("/", urls);
  });

  it("no page, redirect or header names the request's host", async () => {
    const person = await signedInJar();
    const operator = await consoleJar();
    const probes: [string, Record<string, string>][] = [
      ["/", {}],
      ["/", { Cookie: cookieHeader(person) }],
      ["/account/sessions", { Cookie: cookieHeader(person) }],
      ["/account/activity", { Cookie: cookieHeader(person) }],
      ["/account/organizations", { Cookie: cookieHeader(person) }],
      ["/account/sessions", {}],
      ["/admin", {}],
      ["/admin", { Cookie: cookieHeader(operator) }],
      ["/admin/console/search?q=nobody%40nowhere.test", { Cookie: cookieHeader(operator) }],
      ["/auth/login?return_to=%2Faccount%2Fsessions", {}],
      ["/auth/logout", { Cookie: cookieHeader(person), "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate" }],
      ["/auth/signed-out", {}],
      ["/live.js", {}],
      ["/nowhere", {}],
    ];
    let named = 0;
    for (const [path, headers] of probes) {
      const { urls, res } = await namedBy(path, headers);
      expect(res.status, path).toBeLessThan(500);
      expect(
        urls.filter((u) => u.includes("evil.example")),
        path,
      ).toEqual([]);
      expectOnlyConfigured(path, urls);
      named += urls.length;
    }
    // The walk did meet absolute URLs: the CSP's socket source, the provider's Location, the live tags.
    expect(named).toBeGreaterThan(5);
    const csp = (await namedBy("/account/sessions", { Cookie: cookieHeader(person) })).res.headers;
    expect(csp.get("Content-Security-Policy")).toContain("connect-src 'self' wss://auth.example.com");
    const login = (await namedBy("/auth/login")).res.headers.get("Location")!;
    expect(new URL(login).searchParams.get("redirect_uri")).toBe(env.AUTH_REDIRECT_URL);
  });

  it("a form posted to another Host with that host's Origin is not ours (CSRF refuses it)", async () => {
    const jar = await signedInJar();
    // The confirm page's token, asked from our own origin.
    const confirm = await send("/auth/logout", {
      headers: { Cookie: cookieHeader(jar), Accept: "text/html", "Sec-Fetch-Site": "cross-site" },
    });
    cookiesFrom(confirm, jar);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await confirm.text())![1]!;
    const post = (origin: string) =>
      send(`${origin}/auth/logout`, {
        method: "POST",
        headers: {
          Cookie: cookieHeader(jar),
          Origin: origin,
          Accept: "text/html",
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ _csrf: csrf }).toString(),
      });
    const foreign = await post(EVIL);
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain("csrf_failed");
    expect((await post(ORIGIN)).status).toBe(302);
  });

  it("a same-site navigation from the request's host is not the person's own (logout asks first)", async () => {
    const jar = await signedInJar();
    const res = await send(`${EVIL}/auth/logout`, {
      headers: {
        Cookie: cookieHeader(jar),
        Accept: "text/html",
        "Sec-Fetch-Site": "same-site",
        "Sec-Fetch-Mode": "navigate",
        Referer: `${EVIL}/page`,
      },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Sign out?");
  });
});
