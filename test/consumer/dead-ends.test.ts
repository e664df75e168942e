/**
 * Issue 19, no dead ends, on the example consumer in front of the real auth worker: its 403 (not a
 * member, missing role), 404, 429 and 5xx answer a page with a working way out for browsers and
 * the usual JSON for API clients, with the same status and headers. Links are this worker's paths
 * or its configured login URL; nothing the request carried (a slug, a `//host` path) becomes one.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { fakeRateLimiter, restoreRateLimiter } from "gatehouse-workers/testing";
import { afterEach, describe, expect, it } from "vitest";
import consumer, { type ConsumerEnv } from "../../workers/example-consumer/worker";
import { actionLinks, BROWSER, expectSafeLinks, htmlOf, JSON_CLIENT, jsonOf, linkTo } from "../support/error-pages";
import { APP, LOGIN_URL, people, signIn, visit, visitWith } from "./helpers";

const SIGN_IN_AGAIN = `${LOGIN_URL}?return_to=${encodeURIComponent(`${APP}/dashboard`)}`;

/** The sign-out form of the page's main content: a POST to this worker's /logout. */
function signOutForm(html: string): string | undefined {
  const main = html.slice(html.indexOf("<h1>"));
  return /<form method="post" action="\/logout">[\s\S]*?<\/form>/.exec(main)?.[0];
}

async function refusedConfiguration(url: string, accept: Record<string, string>, method = "GET"): Promise<Response> {
  const e = { ...env, AUTH_LOGIN_URL: undefined } as unknown as ConsumerEnv;
  const ctx = createExecutionContext();
  const res = await consumer.fetch(new Request(url, { method, headers: accept }), e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

afterEach(() => restoreRateLimiter());

describe("403 on the example consumer", () => {
  it("not a member of the path's organization: the person's organizations, a new sign-in, sign-out, home", async () => {
    const { cookie } = await signIn(people.grace(), "org_globex");
    const res = await visit("/org/initech/dashboard", { cookie, accept: BROWSER.Accept });
    const html = await htmlOf(res, 403);
    expect(html).toContain("You are not a member of initech.");
    expect(actionLinks(html)).toEqual([
      { label: "Open acme", href: "/org/acme/dashboard" },
      { label: "Open globex", href: "/org/globex/dashboard" },
      { label: "Sign in with another account or organization", href: SIGN_IN_AGAIN },
      { label: "Home", href: "/" },
    ]);
    expect(signOutForm(html)).toContain(">Sign out</button>");
    expectSafeLinks(html, [new URL(LOGIN_URL).origin]);
    // The links work: each organization's page opens.
    for (const href of ["/org/acme/dashboard", "/org/globex/dashboard"]) {
      expect((await visit(href, { cookie, accept: BROWSER.Accept })).status).toBe(200);
    }
    const json = await jsonOf(await visit("/org/initech/dashboard", { cookie, accept: JSON_CLIENT.Accept }), 403);
    expect(json).toEqual({ error: "forbidden", message: "You are not a member of initech." });
  });

  it("missing the admin role: Forbidden with the role sentence and the other organizations", async () => {
    const { cookie } = await signIn(people.grace(), "org_acme");
    const html = await htmlOf(await visit("/org/acme/admin", { cookie, accept: BROWSER.Accept }), 403);
    expect(html).toContain("<h1>Forbidden</h1>");
    expect(html).toContain("Your role in this organization does not allow this.");
    expect(linkTo(html, "Open globex")).toBe("/org/globex/dashboard");
    expect(actionLinks(html).some((l) => l.href.includes("/org/acme/"))).toBe(false);
    expect(signOutForm(html)).toBeDefined();
    // No auth-worker path of RoleMiddleware's own page leaks onto this origin.
    expect(html).not.toContain('href="/auth/logout"');
    const json = await jsonOf(await visit("/org/acme/admin", { cookie, accept: JSON_CLIENT.Accept }), 403);
    expect(json.error).toBe("forbidden");
  });

  it("the sign-out form works from the page (a same-origin POST)", async () => {
    const { cookie } = await signIn(people.alan());
    const res = await exportsFetch("/logout", { method: "POST", headers: { Cookie: cookie, Origin: APP } });
    expect(res.status).toBe(303);
    expect((await visit("/api/me", { cookie, accept: JSON_CLIENT.Accept })).status).toBe(401);
  });
});

describe("404 on the example consumer", () => {
  it("an unknown path: a page whose Home link works; not_found JSON for API clients", async () => {
    const html = await htmlOf(await visit("/no/such/page", { accept: BROWSER.Accept }), 404);
    expect(html).toContain("Page not found");
    expect(actionLinks(html)).toEqual([{ label: "Home", href: "/" }]);
    expect((await visit("/", { accept: BROWSER.Accept })).status).toBe(200);
    expect((await jsonOf(await visit("/no/such/page", { accept: JSON_CLIENT.Accept }), 404)).error).toBe("not_found");
  });

  it("an organization slug it cannot take is a 404 page that does not echo it", async () => {
    const { cookie } = await signIn(people.alan());
    const html = await htmlOf(await visit("/org/%3Cscript%3E/dashboard", { cookie, accept: BROWSER.Accept }), 404);
    expect(html).not.toContain("<script>");
    expect(actionLinks(html)).toEqual([{ label: "Home", href: "/" }]);
  });
});

describe("429 on the example consumer", () => {
  it("a browser past the quota gets a page with the wait and the limiter's headers; JSON clients the 429 as is", async () => {
    const heavy = people.ada();
    const { cookie } = await signIn(heavy);
    fakeRateLimiter().limitKey(heavy.id);
    const res = await visit("/api/quota", { cookie, accept: BROWSER.Accept });
    const retryAfter = Number(res.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(res.headers.get("RateLimit-Policy")).toContain("q=100;w=600");
    const html = await htmlOf(res, 429);
    expect(html).toContain("Too many requests");
    expect(html).toContain(`Please wait ${retryAfter === 1 ? "1 second" : `${retryAfter} seconds`}`);
    expect(actionLinks(html)).toEqual([
      { label: "Try again", href: "/api/quota" },
      { label: "Home", href: "/" },
    ]);

    for (const accept of [JSON_CLIENT.Accept, "*/*"]) {
      const api = await visit("/api/quota", { cookie, accept });
      expect(api.headers.get("Retry-After")).toBe(String(retryAfter));
      expect((await jsonOf(api, 429)).error).toBe("rate_limited");
    }
  });
});

describe("5xx on the example consumer", () => {
  it("the auth worker unreachable: a page with Try again (this URL) and Home; JSON for API clients", async () => {
    const { cookie } = await signIn(people.ada());
    const html = await htmlOf(
      await visitWith("AUTH_DOWN", "/dashboard?tab=2", { cookie, accept: BROWSER.Accept }),
      503,
    );
    expect(html).toContain("Service unavailable");
    expect(html).toContain("auth_service_unavailable");
    expect(actionLinks(html)).toEqual([
      { label: "Try again", href: "/dashboard?tab=2" },
      { label: "Home", href: "/" },
    ]);
    const json = await jsonOf(await visitWith("AUTH_DOWN", "/dashboard", { cookie, accept: JSON_CLIENT.Accept }), 503);
    expect(json.error).toBe("auth_service_unavailable");
    // An API route answers JSON to anything but a browser's navigation.
    expect((await jsonOf(await visitWith("AUTH_DOWN", "/api/me", { cookie }), 503)).error).toBe(
      "auth_service_unavailable",
    );
  });

  it("the auth worker throwing: a 502 page that shows none of its words", async () => {
    const { cookie } = await signIn(people.ada());
    const html = await htmlOf(await visitWith("AUTH_BROKEN", "/dashboard", { cookie, accept: BROWSER.Accept }), 502);
    expect(html).toContain("auth_service_error");
    expect(linkTo(html, "Try again")).toBe("/dashboard");
  });

  it("the configuration refused: a page with Try again; the JSON of before for API clients", async () => {
    const html = await htmlOf(await refusedConfiguration(`${APP}/dashboard`, BROWSER), 503);
    expect(html).not.toContain("AUTH_LOGIN_URL");
    expect(actionLinks(html)).toEqual([
      { label: "Try again", href: "/dashboard" },
      { label: "Home", href: "/" },
    ]);
    expect(await jsonOf(await refusedConfiguration(`${APP}/api/me`, JSON_CLIENT), 503)).toEqual({
      error: "service_unavailable",
      message: "This service is not available.",
    });
  });

  it("Try again is never a link to another host, and a POST gets none", async () => {
    const html = await htmlOf(await refusedConfiguration(`${APP}//evil.example/x`, BROWSER), 503);
    expect(html).not.toContain("//evil.example");
    expect(actionLinks(html)).toEqual([{ label: "Home", href: "/" }]);
    const post = await htmlOf(await refusedConfiguration(`${APP}/logout`, BROWSER, "POST"), 503);
    expect(actionLinks(post)).toEqual([{ label: "Home", href: "/" }]);
  });
});

/** A request to the consumer with any method and headers. */
async function exportsFetch(path: string, init: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await consumer.fetch(
    new Request(`${APP}${path}`, { redirect: "manual", ...init }),
    env as ConsumerEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}
