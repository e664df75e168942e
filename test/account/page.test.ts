import { describe, expect, it } from "vitest";
import { call, freshUser, manager, openPage, signIn } from "./helpers";

const FIREFOX_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:140.0) Gecko/20100101 Firefox/140.0";
const CHROME_ANDROID =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";

interface ListBody {
  currentSessionId: string;
  sessions: Record<string, unknown>[];
}

const getJson = (cookie: string) =>
  call("/account/sessions", { headers: { Cookie: cookie, Accept: "application/json" } });

describe("GET /account/sessions (page)", () => {
  it("lists my sessions, this device first and marked, with a sign-out form for each other one", async () => {
    const user = freshUser();
    const older = await signIn(user, {
      userAgent: CHROME_ANDROID,
      ip: "198.51.100.4",
      organizationId: "org_globex",
      location: { country: "PT", region: "Lisbon", city: "Lisbon", colo: "LIS" },
    });
    const me = await signIn(user, { userAgent: FIREFOX_MAC, ip: "203.0.113.7" });
    const page = await openPage(me);
    expect(page.res.status).toBe(200);
    expect(page.res.headers.get("Content-Type")).toContain("text/html");
    expect(page.res.headers.get("Cache-Control")).toBe("private, no-store");
    expect(page.items).toEqual([
      { id: me.sessionId, current: true },
      { id: older.sessionId, current: false },
    ]);
    expect(page.html).toContain("this device");
    expect(page.html).toContain("Firefox 140 on macOS");
    expect(page.html).toContain("Chrome 131 on Android");
    expect(page.html).toContain("IP 203.0.113.7");
    expect(page.html).toContain("organization globex");
    // Where each signed in from, first and last seen, when it ends.
    expect(page.html).toContain("Lisbon, PT (LIS)");
    expect(page.html).toContain("Unknown location");
    expect(page.html).toMatch(/first seen <time datetime="[^"]+">/);
    expect(page.html).toMatch(/last seen <time/);
    expect(page.html).toMatch(/ends if unused by <time[^>]*>[^<]+<\/time>, at the latest <time/);
    // This device's sign-out in the header (a POST, never a link), then one form per other session
    // and "sign out everywhere else"; all carry the page's CSRF token. The other session was a new
    // device: it carries "this wasn't me" (every session out) too.
    expect(page.forms.map((f) => f.action)).toEqual([
      "/auth/logout",
      "/account/sessions/revoke-all",
      `/account/sessions/${older.sessionId}/revoke`,
      "/account/sessions/revoke-others",
    ]);
    expect(page.csrf).toMatch(/^[\w-]+\.[\w-]+$/);
    for (const form of page.forms) expect(form.csrf).toBe(page.csrf);
    expect(page.csrfCookie).toBe(`__Host-gh_csrf=${page.csrf}`);
    expect(page.html).toContain("Sign out everywhere else");
  });

  it("with one session only, offers no sign-out forms but this device's own", async () => {
    const me = await signIn(freshUser());
    const page = await openPage(me);
    expect(page.items).toEqual([{ id: me.sessionId, current: true }]);
    expect(page.forms.map((f) => f.action)).toEqual(["/auth/logout"]);
    expect(page.html).toContain("not signed in anywhere else");
  });

  it("allows only its own scripts and same-origin connections (CSP), and has no inline script", async () => {
    const page = await openPage(await signIn(freshUser()));
    const csp = page.res.headers.get("Content-Security-Policy") ?? "";
    const directives = Object.fromEntries(
      csp.split(";").map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values];
      }),
    );
    expect(directives["default-src"]).toEqual(["'none'"]);
    expect(directives["script-src"]).toEqual(["'self'"]);
    expect(directives["connect-src"]).toEqual(["'self'", "wss://auth.example.com"]);
    expect(directives["form-action"]).toEqual(["'self'"]);
    expect(directives["frame-ancestors"]).toEqual(["'none'"]);
    expect(csp).not.toContain("unsafe");
    // The page's inline <style> is allowed by its exact hash, nothing else.
    const css = /<style>([\s\S]*?)<\/style>/.exec(page.html)![1]!;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(css)));
    expect(directives["style-src"]).toEqual([`'sha256-${btoa(String.fromCharCode(...digest))}'`]);
    const scripts = [...page.html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => m[0])).toEqual(['<script type="module" src="/account/live.js"></script>']);
    expect(page.res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  it("gives the live script its hooks: user id, this tab's session id, the CSRF token", async () => {
    const me = await signIn(freshUser());
    const page = await openPage(me);
    expect(page.html).toContain(`data-user-id="${me.userId}"`);
    expect(page.html).toContain(`data-session-id="${me.sessionId}"`);
    expect(page.html).toContain(`data-csrf="${page.csrf}"`);
    expect(page.html).toMatch(/<p id="signed-out" role="alert" hidden>/);
  });

  it("escapes what the browser sent (user agent)", async () => {
    const user = freshUser();
    await signIn(user, { userAgent: '<script>alert("x")</script>' });
    const page = await openPage(await signIn(user));
    expect(page.html).not.toContain("<script>alert");
    expect(page.html).toContain("&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;");
  });

  it("shows a confirmation after a redirect, only from a fixed set of messages", async () => {
    const me = await signIn(freshUser());
    expect((await openPage(me, "/account/sessions?signed_out=2")).html).toContain("Signed out 2 sessions.");
    const odd = await openPage(me, "/account/sessions?signed_out=%3Cb%3E");
    expect(odd.res.status).toBe(200);
    expect(odd.html).not.toContain("Signed out");
    expect(odd.html).not.toContain("<b>");
  });
});

describe("GET /account/sessions (JSON)", () => {
  it("answers { sessions, currentSessionId } to a client asking for JSON", async () => {
    const user = freshUser();
    const other = await signIn(user, { userAgent: CHROME_ANDROID, ip: "198.51.100.4" });
    const me = await signIn(user, { userAgent: FIREFOX_MAC, ip: "203.0.113.7" });
    const res = await getJson(me.cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/json");
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    expect(res.headers.get("Vary")).toContain("Accept");
    const body = (await res.json()) as ListBody;
    expect(body.currentSessionId).toBe(me.sessionId);
    expect(body.sessions.map((s) => [s.id, s.current])).toEqual([
      [me.sessionId, true],
      [other.sessionId, false],
    ]);
    expect(body.sessions[0]).toMatchObject({
      device: "Firefox 140 on macOS",
      userAgent: FIREFOX_MAC,
      ip: "203.0.113.7",
      organizationId: "org_acme",
      organizationSlug: "acme",
    });
    expect(body.sessions[0]!.createdAt).toBeTypeOf("number");
    expect(body.sessions[0]!.lastSeenAt).toBeTypeOf("number");
    // The provider's session id is an internal handle: never sent to the browser.
    for (const s of body.sessions) expect(Object.keys(s)).not.toContain("providerSessionId");
  });

  it.each([
    [FIREFOX_MAC, "Firefox 140 on macOS"],
    [CHROME_ANDROID, "Chrome 131 on Android"],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86",
      "Edge 131 on Windows",
    ],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
      "Safari 18 on iOS",
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15",
      "Safari 17 on macOS",
    ],
    ["curl/8.10.1", "curl 8"],
    ["SomeBot", "SomeBot"],
    [undefined, "Unknown device"],
  ])("makes the user agent %j readable as %j", async (userAgent, device) => {
    const me = await signIn(freshUser(), userAgent ? { userAgent } : {});
    const body = (await (await getJson(me.cookie)).json()) as ListBody;
    expect(body.sessions[0]!.device).toBe(device);
  });
});

describe("without a session", () => {
  it("a page visit is redirected to the login, coming back here afterwards", async () => {
    const res = await call("/account/sessions", { headers: { Accept: "text/html" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/auth/login?return_to=%2Faccount%2Fsessions");
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
  });

  it("a JSON client gets 401 JSON, and so does a form post", async () => {
    const json = await call("/account/sessions", { headers: { Accept: "application/json" } });
    expect(json.status).toBe(401);
    expect(await json.json()).toMatchObject({ error: "unauthenticated" });
    const post = await call("/account/sessions/revoke-others", { method: "POST" });
    expect(post.status).toBe(401);
  });

  it("a revoked session's cookie no longer opens the page", async () => {
    const me = await signIn(freshUser());
    await manager().revokeSession(me.sessionId);
    const res = await call("/account/sessions", { headers: { Cookie: me.cookie, Accept: "text/html" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toMatch(/^\/auth\/login\?/);
  });
});
