/**
 * Issue 14 finding 3: cross-site sign-out. `GET /auth/logout` signs out only on the person's own
 * navigation (fetch metadata `same-origin`/`none`, or `same-site` from a trusted origin, in
 * `navigate` mode); requests without fetch metadata keep the spec's behaviour. Every other GET
 * (a link from another site, an `<img>` on a sibling subdomain) gets a confirm page whose button
 * POSTs with a CSRF token; POST without a valid token is refused. No GET anywhere changes state.
 */
import { describe, expect, it } from "vitest";
import { cookieHeader, cookiesFrom, me, ORIGIN, send, signedInJar } from "./helpers/world";

const signedIn = () => signedInJar();

async function stillSignedIn(jar: Record<string, string>): Promise<boolean> {
  return (await me(jar)).status === 200;
}

const logoutGet = (jar: Record<string, string>, headers: Record<string, string>) =>
  send("/auth/logout", { headers: { Cookie: cookieHeader(jar), ...headers } });

describe("finding 3: GET /auth/logout", () => {
  it.each([
    ["a link or redirect from another site", { "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate" }],
    ["an <img> on a sibling subdomain", { "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors" }],
    [
      "a same-site navigation from an untrusted subdomain",
      { "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "navigate", Referer: "https://evil.example.com/x" },
    ],
    ["a same-origin fetch() (not a navigation)", { "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors" }],
  ])("does not sign out on %s: a confirm page that POSTs instead", async (_label, headers) => {
    const jar = await signedIn();
    const res = await logoutGet(jar, { Accept: "text/html", ...headers });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(
      /<form method="post" action="\/auth\/logout"><input type="hidden" name="_csrf" value="[\w.-]+">/,
    );
    expect(res.headers.getSetCookie().join("\n")).not.toMatch(/gh_session=;/);
    expect(await stillSignedIn(jar)).toBe(true);
  });

  it("answers API clients 403 logout_confirm_required, still signed in", async () => {
    const jar = await signedIn();
    const res = await logoutGet(jar, { Accept: "application/json", "Sec-Fetch-Site": "cross-site" });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: "logout_confirm_required" });
    expect(await stillSignedIn(jar)).toBe(true);
  });

  it.each([
    ["same-origin navigation", { "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "navigate" }],
    ["a typed or bookmarked URL", { "Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate" }],
    [
      "a same-site navigation from a trusted consumer origin",
      { "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "navigate", Referer: "https://app.example.com/dashboard" },
    ],
    ["a request without fetch metadata (the spec's behaviour)", {}],
  ])("signs out on %s", async (_label, headers) => {
    const jar = await signedIn();
    const res = await logoutGet(jar, headers);
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/");
    expect(await stillSignedIn(jar)).toBe(false);
  });
});

describe("finding 3: POST /auth/logout needs the CSRF token", () => {
  it("the confirm page's form signs out", async () => {
    const jar = await signedIn();
    const confirm = await logoutGet(jar, { "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate" });
    cookiesFrom(confirm, jar);
    const token = /name="_csrf" value="([\w.-]+)"/.exec(await confirm.text())![1]!;
    const res = await send("/auth/logout", {
      method: "POST",
      headers: {
        Cookie: cookieHeader(jar),
        Origin: ORIGIN,
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ _csrf: token }).toString(),
    });
    expect(res.status).toBe(302);
    expect(await stillSignedIn(jar)).toBe(false);
  });

  it.each([
    ["no token", {}],
    ["a cross-site POST", { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" }],
  ])("refuses %s (403) and keeps the session", async (_label, headers) => {
    const jar = await signedIn();
    const res = await send("/auth/logout", {
      method: "POST",
      headers: { Cookie: cookieHeader(jar), "Content-Type": "application/x-www-form-urlencoded", ...headers },
      body: "",
    });
    expect(res.status).toBe(403);
    expect(await stillSignedIn(jar)).toBe(true);
  });
});

describe("finding 3: no GET changes state", () => {
  it.each(["/account/sessions/revoke-others", `/account/sessions/${"a".repeat(64)}/revoke`])(
    "GET %s signs nobody out",
    async (path) => {
      const jar = await signedIn();
      const res = await send(path, { headers: { Cookie: cookieHeader(jar), Accept: "application/json" } });
      expect(res.status).toBe(404);
      expect(await stillSignedIn(jar)).toBe(true);
    },
  );

  it("the home and account pages sign out with a POST form, never a link", async () => {
    const jar = await signedIn();
    for (const path of ["/", "/account/sessions"]) {
      const html = await (await send(path, { headers: { Cookie: cookieHeader(jar), Accept: "text/html" } })).text();
      expect(html).toContain('<form method="post" action="/auth/logout">');
      expect(html).not.toContain('href="/auth/logout"');
    }
  });
});
