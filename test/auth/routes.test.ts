import { env } from "cloudflare:workers";
import { handleLogout } from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";
import { safeReturnTo } from "../../workers/auth/flow/return-to";
import { ada, cookieHeader, cookiesFrom, login, makeApp, ORIGIN, REDIRECT_URL, TestClock } from "./helpers";

async function sessionCount(userId: string): Promise<number> {
  const { keys } = await env.SESSIONS.list<{ userId: string }>({ prefix: "sess:" });
  return keys.filter((k) => k.metadata?.userId === userId).length;
}

describe("GET /auth/login", () => {
  it("redirects to the provider with state, an S256 challenge and the exact redirect URI", async () => {
    const ctx = makeApp();
    const res = await ctx.app.fetch(
      new Request(`${ORIGIN}/auth/login?return_to=/reports?q=1&organization_id=org_acme`),
    );
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get("Location")!);
    expect(to.origin + to.pathname).toBe(ctx.fake.authorizeUrl);
    expect(to.searchParams.get("redirect_uri")).toBe(REDIRECT_URL);
    expect(to.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get("code_challenge_method")).toBe("S256");
    expect(to.searchParams.get("organization_id")).toBe("org_acme");
    const cookie = res.headers.get("Set-Cookie")!;
    expect(cookie).toMatch(/^__Host-gh_login_[A-Za-z0-9_-]{16}=/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("Max-Age=600");
  });

  it("never builds the redirect URI from the Host header", async () => {
    const ctx = makeApp();
    const res = await ctx.app.fetch(
      new Request("https://evil.example/auth/login", { headers: { Host: "evil.example" } }),
    );
    expect(new URL(res.headers.get("Location")!).searchParams.get("redirect_uri")).toBe(REDIRECT_URL);
  });

  it("rejects a malformed organization_id with a 400 page", async () => {
    const ctx = makeApp();
    const res = await ctx.app.fetch(new Request(`${ORIGIN}/auth/login?organization_id=<script>`));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("organization_id is not a valid organization id");
  });
});

describe("GET /auth/callback", () => {
  it("exchanges the code, creates a session and lands on return_to", async () => {
    const ctx = makeApp();
    const { callback, jar } = await login(ctx, "user_ada", { returnTo: "/reports?q=1#top" });
    expect(callback.status).toBe(302);
    expect(callback.headers.get("Location")).toBe("/reports?q=1#top");
    expect(jar["__Host-gh_session"]).toBeDefined();
    expect(Object.keys(jar).some((n) => n.includes("gh_login_"))).toBe(false); // flow cookie cleared
    const user = await ctx.sessions.resolveUser(new Request(ORIGIN, { headers: { Cookie: cookieHeader(jar) } }));
    expect(user?.email).toBe("ada@acme.test");
  });

  it("redirects to / when there is no return_to, and keeps the provider's organization", async () => {
    const ctx = makeApp();
    const { callback, jar } = await login(ctx, "user_ada", { organizationId: "org_globex" });
    expect(callback.headers.get("Location")).toBe("/");
    const user = await ctx.sessions.resolveUser(new Request(ORIGIN, { headers: { Cookie: cookieHeader(jar) } }));
    expect(user?.organizationId).toBe("org_globex");
  });

  it("keeps two tabs' login flows apart", async () => {
    const ctx = makeApp();
    const jar: Record<string, string> = {};
    const a = await ctx.app.fetch(new Request(`${ORIGIN}/auth/login?return_to=/a`));
    cookiesFrom(a, jar);
    const b = await ctx.app.fetch(
      new Request(`${ORIGIN}/auth/login?return_to=/b`, { headers: { Cookie: cookieHeader(jar) } }),
    );
    cookiesFrom(b, jar);
    const finish = async (start: Response) => {
      const url = new URL(start.headers.get("Location")!);
      const code = ctx.fake.issueCode("user_ada", { codeChallenge: url.searchParams.get("code_challenge")! });
      return ctx.app.fetch(
        new Request(`${ORIGIN}/auth/callback?code=${code}&state=${url.searchParams.get("state")}`, {
          headers: { Cookie: cookieHeader(jar) },
        }),
      );
    };
    expect((await finish(b)).headers.get("Location")).toBe("/b");
    expect((await finish(a)).headers.get("Location")).toBe("/a");
  });

  it("refuses a state that was not started in this browser: 400 page, no session", async () => {
    const ctx = makeApp();
    const before = await sessionCount("user_bob");
    const start = await ctx.app.fetch(new Request(`${ORIGIN}/auth/login`));
    const url = new URL(start.headers.get("Location")!);
    const code = ctx.fake.issueCode("user_bob", { codeChallenge: url.searchParams.get("code_challenge")! });
    const res = await ctx.app.fetch(
      new Request(`${ORIGIN}/auth/callback?code=${code}&state=${url.searchParams.get("state")}`),
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("Content-Type")).toContain("text/html");
    expect(await res.text()).toContain("was not started in this browser");
    expect(res.headers.get("Set-Cookie") ?? "").not.toContain("gh_session=");
    expect(await sessionCount("user_bob")).toBe(before);
  });

  it("refuses a mismatched state (another flow's cookie)", async () => {
    const ctx = makeApp();
    const jar = cookiesFrom(await ctx.app.fetch(new Request(`${ORIGIN}/auth/login`)));
    const forged = "A".repeat(43);
    const res = await ctx.app.fetch(
      new Request(`${ORIGIN}/auth/callback?code=x&state=${forged}`, { headers: { Cookie: cookieHeader(jar) } }),
    );
    expect(res.status).toBe(400);
  });

  it("refuses an expired login flow with a 400 page and creates no session", async () => {
    const clock = new TestClock();
    const ctx = makeApp({ clock });
    const jar = cookiesFrom(await ctx.app.fetch(new Request(`${ORIGIN}/auth/login`)));
    const name = Object.keys(jar)[0]!;
    const payload = jar[name]!.split(".")[0]!;
    const state = JSON.parse(atob(payload.replaceAll("-", "+").replaceAll("_", "/"))).state as string;
    clock.advance(601);
    const res = await ctx.app.fetch(
      new Request(`${ORIGIN}/auth/callback?code=x&state=${state}`, { headers: { Cookie: cookieHeader(jar) } }),
    );
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("expired");
    expect(res.headers.getSetCookie().some((c) => c.startsWith(`${name}=;`))).toBe(true);
  });

  it("cannot be replayed: the flow cookie and the code are one-time", async () => {
    const ctx = makeApp();
    const jar: Record<string, string> = {};
    const start = await ctx.app.fetch(new Request(`${ORIGIN}/auth/login`));
    cookiesFrom(start, jar);
    const url = new URL(start.headers.get("Location")!);
    const code = ctx.fake.issueCode("user_ada", { codeChallenge: url.searchParams.get("code_challenge")! });
    const req = () =>
      new Request(`${ORIGIN}/auth/callback?code=${code}&state=${url.searchParams.get("state")}`, {
        headers: { Cookie: cookieHeader(jar) },
      });
    expect((await ctx.app.fetch(req())).status).toBe(302);
    expect((await ctx.app.fetch(req())).status).toBe(400);
  });

  it("shows the provider's error as a 400 page without a session or a redirect loop", async () => {
    const ctx = makeApp();
    const res = await ctx.app.fetch(
      new Request(`${ORIGIN}/auth/callback?error=access_denied&error_description=User%20cancelled`),
    );
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("The sign-in was cancelled or not allowed.");
    expect(html).not.toContain("User cancelled");
    expect(res.headers.get("Location")).toBeNull();
  });

  it("never shows what the provider query carries (fixed words only)", async () => {
    const ctx = makeApp();
    const res = await ctx.app.fetch(new Request(`${ORIGIN}/auth/callback?error=<script>alert(1)</script>`));
    const html = await res.text();
    expect(html).not.toContain("<script>alert(1)");
    expect(html).not.toContain("&#60;script&#62;");
    expect(html).toContain("The identity provider did not sign you in.");
  });

  it.each([
    ["provider_error", 400],
    ["provider_unavailable", 502],
  ] as const)("answers a failed code exchange (%s) with %i and no session", async (failure, status) => {
    const ctx = makeApp();
    const before = await sessionCount("user_bob");
    const jar: Record<string, string> = {};
    const start = await ctx.app.fetch(new Request(`${ORIGIN}/auth/login`));
    cookiesFrom(start, jar);
    const url = new URL(start.headers.get("Location")!);
    const code = ctx.fake.issueCode("user_bob", { codeChallenge: url.searchParams.get("code_challenge")! });
    ctx.fake.failNext(failure);
    const res = await ctx.app.fetch(
      new Request(`${ORIGIN}/auth/callback?code=${code}&state=${url.searchParams.get("state")}`, {
        headers: { Cookie: cookieHeader(jar) },
      }),
    );
    expect(res.status).toBe(status);
    expect(await res.text()).toContain(failure);
    expect(await sessionCount("user_bob")).toBe(before);
  });

  it("answers JSON to clients that ask for it", async () => {
    const ctx = makeApp();
    const res = await ctx.app.fetch(
      new Request(`${ORIGIN}/auth/callback?code=x&state=y`, { headers: { Accept: "application/json" } }),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_state" });
  });
});

describe("GET /auth/logout", () => {
  it("destroys the session, clears the cookie, redirects to / and ends the provider session", async () => {
    const ctx = makeApp();
    const { jar } = await login(ctx, "user_ada");
    const cookie = cookieHeader(jar);
    const res = await ctx.app.fetch(new Request(`${ORIGIN}/auth/logout`, { headers: { Cookie: cookie } }));
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/");
    expect(res.headers.get("Set-Cookie")).toMatch(/^__Host-gh_session=; Max-Age=0/);
    expect(await ctx.sessions.resolveUser(new Request(ORIGIN, { headers: { Cookie: cookie } }))).toBeNull();
    expect(ctx.fake.revoked).toHaveLength(1);
  });

  it("handleLogout redirects to /auth/login by default", async () => {
    const ctx = makeApp();
    const { jar } = await login(ctx, "user_ada");
    const res = await handleLogout(new Request(ORIGIN, { headers: { Cookie: cookieHeader(jar) } }), ctx.sessions);
    expect(res.headers.get("Location")).toBe("/auth/login");
    expect(await ctx.sessions.resolveUser(new Request(ORIGIN, { headers: { Cookie: cookieHeader(jar) } }))).toBeNull();
  });

  it.each([
    [
      "an absolute URL on an allowed return origin is honoured",
      "https://app.example.com/bye?x=1",
      "https://app.example.com/bye?x=1",
    ],
    ["an absolute URL elsewhere falls back to /auth/login", "https://evil.example/bye", "/auth/login"],
    ["a path on this origin is honoured", "/goodbye", "/goodbye"],
    ["a protocol-relative URL falls back", "//evil.example/x", "/auth/login"],
  ])("handleLogout redirectTo: %s", async (_label, redirectTo, location) => {
    const ctx = makeApp();
    const { jar } = await login(ctx, "user_ada");
    const res = await handleLogout(
      new Request(ORIGIN, { headers: { Cookie: cookieHeader(jar) } }),
      ctx.sessions,
      redirectTo,
      { returnOrigins: ["https://app.example.com"] },
    );
    expect(res.headers.get("Location")).toBe(location);
    expect(await ctx.sessions.resolveUser(new Request(ORIGIN, { headers: { Cookie: cookieHeader(jar) } }))).toBeNull();
  });

  it("without a session still clears the cookie and redirects", async () => {
    const ctx = makeApp();
    const res = await ctx.app.fetch(new Request(`${ORIGIN}/auth/logout`));
    expect(res.status).toBe(302);
    expect(res.headers.get("Set-Cookie")).toContain("Max-Age=0");
  });
});

describe("safeReturnTo (open-redirect list)", () => {
  it.each([
    "//evil.com",
    "///evil.com",
    "/\\evil.com",
    "\\/evil.com",
    "\\\\evil.com",
    "https:evil.com",
    "https://evil.com",
    "http://evil.com/path",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,x",
    "%2F%2Fevil.com",
    "/%2F/evil.com",
    "/%5Cevil.com",
    "/%5C%5Cevil.com",
    "/\t/evil.com",
    "/\n/evil.com",
    "\t//evil.com",
    " //evil.com",
    "/%09/evil.com",
    "/%0A/evil.com",
    "/.//evil.com",
    "/..//evil.com",
    "/a/..//evil.com",
    "/%2e//evil.com",
    "/%2E%2E//evil.com",
    "/%00",
    "evil.com",
    "",
    "/".padEnd(3000, "a"),
  ])("%j falls back to /", (value) => {
    expect(safeReturnTo(value)).toBe("/");
  });

  it.each([
    ["/", "/"],
    ["/dashboard", "/dashboard"],
    ["/a/b?x=1&y=%2F#frag", "/a/b?x=1&y=%2F#frag"],
    ["/org/acme/settings", "/org/acme/settings"],
  ])("%j is kept as %j", (value, expected) => {
    expect(safeReturnTo(value)).toBe(expected);
  });

  it("accepts absolute URLs only on listed origins", () => {
    const allowed = ["https://app.example.com"];
    expect(safeReturnTo("https://app.example.com/dashboard?x=1", "/", allowed)).toBe(
      "https://app.example.com/dashboard?x=1",
    );
    for (const bad of [
      "https://evil.example.com/",
      "https://app.example.com.evil.com/",
      "https://app.example.com@evil.com/",
      "https://user:pw@app.example.com/",
      "http://app.example.com/",
      "https://app.example.com\t/x",
      "https://app.example.com/\n",
    ]) {
      expect(safeReturnTo(bad, "/", allowed)).toBe("/");
    }
    expect(safeReturnTo("https://app.example.com/x")).toBe("/");
  });

  it("is applied on the way in and on the way out of a login", async () => {
    const ctx = makeApp();
    const { callback } = await login(ctx, "user_ada", { returnTo: "//evil.com/steal" });
    expect(callback.headers.get("Location")).toBe("/");
    expect(ada.id).toBe("user_ada");
  });
});
