import { Application, compose } from "gatehouse-workers";
import {
  AuthMiddleware,
  CsrfMiddleware,
  csrfToken,
  currentUser,
  GuestMiddleware,
  OrgResolver,
  RoleMiddleware,
} from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";
import { actionLinks, BROWSER, htmlOf, JSON_CLIENT, jsonOf } from "../support/error-pages";
import { cookieHeader, cookiesFrom, login, makeApp, ORIGIN } from "./helpers";

describe("AuthMiddleware", () => {
  it("redirects a page visit without a session to /auth/login with return_to", async () => {
    const { sessions } = makeApp();
    const run = compose([new AuthMiddleware(sessions)], () => new Response("secret"));
    const res = await run(new Request(`${ORIGIN}/reports/q3?tab=2`));
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/auth/login?return_to=%2Freports%2Fq3%3Ftab%3D2");
  });

  it("answers 401 JSON to API calls instead of a redirect they cannot follow", async () => {
    const { sessions } = makeApp();
    const run = compose([new AuthMiddleware(sessions)], () => new Response("secret"));
    const post = await run(new Request(`${ORIGIN}/api/x`, { method: "POST" }));
    expect(post.status).toBe(401);
    expect(await post.json()).toEqual({ error: "unauthenticated", message: "Sign in first" });
    const json = await run(new Request(`${ORIGIN}/api/x`, { headers: { Accept: "application/json" } }));
    expect(json.status).toBe(401);
  });

  it("passes a signed-in request with the user available, and marks the response no-store", async () => {
    const ctx = makeApp();
    const { jar } = await login(ctx, "user_ada");
    const run = compose(
      [new AuthMiddleware(ctx.sessions)],
      (req) => new Response(`hello ${currentUser(req)?.firstName}`),
    );
    const res = await run(new Request(`${ORIGIN}/`, { headers: { Cookie: cookieHeader(jar) } }));
    expect(await res.text()).toBe("hello Ada");
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
  });

  it("works as Hono middleware through toHono", async () => {
    const ctx = makeApp();
    const { jar } = await login(ctx, "user_bob");
    const app = Application.create({}, { middleware: [new AuthMiddleware(ctx.sessions)] });
    app.hono.get("/me", (c) => c.json(currentUser(c.req.raw)));
    const ok = await app.fetch(new Request(`${ORIGIN}/me`, { headers: { Cookie: cookieHeader(jar) } }));
    expect(((await ok.json()) as { email: string }).email).toBe("bob@acme.test");
    expect((await app.fetch(new Request(`${ORIGIN}/me`))).status).toBe(302);
  });
});

describe("GuestMiddleware", () => {
  it("redirects a signed-in person to / and lets a guest through", async () => {
    const ctx = makeApp();
    const { jar } = await login(ctx, "user_ada");
    const run = compose([new GuestMiddleware(ctx.sessions)], () => new Response("sign-in page"));
    const signedIn = await run(new Request(`${ORIGIN}/signin`, { headers: { Cookie: cookieHeader(jar) } }));
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get("Location")).toBe("/");
    expect(await (await run(new Request(`${ORIGIN}/signin`))).text()).toBe("sign-in page");
  });
});

describe("RoleMiddleware", () => {
  const setup = async (userId: string, orgId?: string) => {
    const ctx = makeApp();
    const { jar } = await login(ctx, userId, orgId ? { organizationId: orgId } : {});
    const resolver = new OrgResolver(["subdomain", "path-prefix", "header"]);
    const run = compose(
      [new AuthMiddleware(ctx.sessions, { orgResolver: resolver }), new RoleMiddleware("admin", "owner")],
      () => new Response("admin area"),
    );
    return (url: string, headers: Record<string, string> = {}) =>
      run(new Request(url, { headers: { Cookie: cookieHeader(jar), ...headers } }));
  };

  it("admits a role listed for the organization from the subdomain", async () => {
    const get = await setup("user_ada");
    expect((await get("https://acme.example.com/admin")).status).toBe(200);
  });

  it("refuses with 403 when the role in that organization is not listed", async () => {
    const get = await setup("user_ada");
    const res = await get("https://globex.example.com/admin");
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("does not allow this");
  });

  it("gives its 403 page a way out: a sign-in into each other organization, a sign-out, home", async () => {
    const get = await setup("user_ada", "org_acme");
    const html = await htmlOf(await get("https://example.com/org/globex/admin", BROWSER), 403);
    // Ada is a member of globex (the page's) and an admin of acme: the link signs her in to acme.
    expect(actionLinks(html)).toEqual([
      { label: "Sign in to acme", href: "/auth/login?organization_id=org_acme" },
      { label: "Sign in to another organization", href: "/auth/login" },
      { label: "Sign out", href: "/auth/logout" },
      { label: "Home", href: "/" },
    ]);
    const json = await jsonOf(await get("https://example.com/org/globex/admin", JSON_CLIENT), 403);
    expect(json).toEqual({ error: "forbidden", message: "Your role in this organization does not allow this." });
  });

  it("uses the path prefix and the header strategies", async () => {
    const get = await setup("user_ada");
    // example.com has no subdomain, so the next strategies decide.
    expect((await get("https://example.com/org/acme/admin")).status).toBe(200);
    expect((await get("https://example.com/org/globex/admin")).status).toBe(403);
    expect((await get("https://example.com/admin", { "X-Org-Slug": "acme" })).status).toBe(200);
  });

  it("falls back to the session's organization when the request names none", async () => {
    expect((await (await setup("user_ada", "org_acme"))("https://example.com/admin")).status).toBe(200);
    expect((await (await setup("user_ada", "org_globex"))("https://example.com/admin")).status).toBe(403);
    expect((await (await setup("user_ada"))("https://example.com/admin")).status).toBe(403);
  });

  it("refuses a member and an organization the user does not belong to", async () => {
    const get = await setup("user_bob");
    expect((await get("https://acme.example.com/admin")).status).toBe(403);
    expect((await get("https://initech.example.com/admin")).status).toBe(403);
  });

  it("refuses without a user, and needs at least one role", async () => {
    const run = compose([new RoleMiddleware("admin")], () => new Response("x"));
    expect((await run(new Request(`${ORIGIN}/admin`))).status).toBe(403);
    expect(() => new RoleMiddleware()).toThrowError(/at least one/);
  });
});

describe("CsrfMiddleware", () => {
  const setup = async () => {
    const ctx = makeApp();
    const { jar } = await login(ctx, "user_ada");
    const csrf = new CsrfMiddleware(ctx.sessions);
    const run = compose([new AuthMiddleware(ctx.sessions), csrf], (req) =>
      req.method === "GET" ? new Response(`<input name="_csrf" value="${csrfToken(req)}">`) : new Response("saved"),
    );
    const page = await run(new Request(`${ORIGIN}/form`, { headers: { Cookie: cookieHeader(jar) } }));
    cookiesFrom(page, jar);
    const token = /value="([^"]+)"/.exec(await page.text())![1]!;
    return { ctx, jar, run, token, csrf };
  };

  it("issues a token on GET in a cookie and to the handler", async () => {
    const { jar, token, csrf } = await setup();
    expect(jar[csrf.cookieName]).toBe(token);
    expect(csrf.cookieName).toBe("__Host-gh_csrf");
  });

  it("accepts a POST whose _csrf field matches the cookie, and the handler still reads the body", async () => {
    const { ctx, jar, token } = await setup();
    const run = compose(
      [new AuthMiddleware(ctx.sessions), new CsrfMiddleware(ctx.sessions)],
      async (req) => new Response(`saved ${(await req.formData()).get("title")}`),
    );
    const res = await run(
      new Request(`${ORIGIN}/form`, {
        method: "POST",
        headers: { Cookie: cookieHeader(jar), "Content-Type": "application/x-www-form-urlencoded", Origin: ORIGIN },
        body: new URLSearchParams({ _csrf: token, title: "Q3" }),
      }),
    );
    expect(await res.text()).toBe("saved Q3");
  });

  it.each(["PUT", "PATCH", "DELETE"])("accepts %s with the X-CSRF-Token header", async (method) => {
    const { jar, run, token } = await setup();
    const res = await run(
      new Request(`${ORIGIN}/x`, { method, headers: { Cookie: cookieHeader(jar), "X-CSRF-Token": token } }),
    );
    expect(res.status).toBe(200);
  });

  it("refuses a POST without a token with a 403 page that says why", async () => {
    const { jar, run } = await setup();
    const res = await run(
      new Request(`${ORIGIN}/form`, {
        method: "POST",
        headers: { Cookie: cookieHeader(jar), "Content-Type": "application/x-www-form-urlencoded" },
        body: "title=x",
      }),
    );
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("The form has no security token");
  });

  it("refuses a wrong token, a missing cookie, a foreign origin and a cross-site fetch", async () => {
    const { jar, run, token, csrf } = await setup();
    const post = (headers: Record<string, string>, cookies = jar) =>
      run(new Request(`${ORIGIN}/x`, { method: "POST", headers: { Cookie: cookieHeader(cookies), ...headers } }));
    const wrong = await post({ "X-CSRF-Token": `${token}x`, Accept: "application/json" });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({ error: "csrf_failed" });
    const { [csrf.cookieName]: _dropped, ...noCsrf } = jar;
    expect((await post({ "X-CSRF-Token": token }, noCsrf)).status).toBe(403);
    expect((await post({ "X-CSRF-Token": token, Origin: "https://evil.example" })).status).toBe(403);
    expect((await post({ "X-CSRF-Token": token, "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
  });

  it("binds tokens to the session: another session's token and cookie pair is refused", async () => {
    const a = await setup();
    const ctxB = makeApp();
    const { jar: jarB } = await login(ctxB, "user_bob");
    // Bob's browser is given Ada's CSRF cookie and token (e.g. planted by a sibling subdomain).
    const planted = { ...jarB, [a.csrf.cookieName]: a.token };
    const res = await a.run(
      new Request(`${ORIGIN}/x`, {
        method: "POST",
        headers: { Cookie: cookieHeader(planted), "X-CSRF-Token": a.token },
      }),
    );
    expect(res.status).toBe(403);
  });

  it("does not change state on GET", async () => {
    const { jar, run } = await setup();
    const res = await run(new Request(`${ORIGIN}/form`, { headers: { Cookie: cookieHeader(jar) } }));
    expect(await res.text()).toContain("_csrf");
  });
});
