/**
 * Issue 19, no dead ends, on the auth worker: every error a person meets (the provider's cancel,
 * a refused organization, an unknown page, a limit, an outage) answers a page with a working way
 * out for browsers and the usual `{ error, message }` JSON for API clients, with the same status.
 * Links are paths of this worker or origins the operator listed: a `return_to` of another origin,
 * a `//host` path, a crafted callback never becomes a link.
 */
import { describe, expect, it } from "vitest";
import { brokenKV } from "../faults/broken";
import { actionLinks, BROWSER, expectSafeLinks, htmlOf, JSON_CLIENT, jsonOf, linkTo } from "../support/error-pages";
import {
  cookieHeader,
  live,
  ORIGIN,
  providerCode,
  send,
  signedInJar,
  startLogin,
  type WorkerEnv,
} from "./helpers/world";

const APP = "https://app.example.com"; // AUTH_RETURN_ORIGINS of this suite
const MARGARET = "user_01MARGARETHAMILTON00000000"; // a member of no organization
const ACME = "org_01ACME00000000000000000000";
const GLOBEX = "org_01GLOBEX000000000000000000";

/** The provider's "Cancel" of a sign-in started with `query`: the callback with `error=access_denied`. */
async function cancelled(query: string, headers: Record<string, string> = BROWSER): Promise<Response> {
  const { jar, authorize } = await startLogin(query);
  return send(`/auth/callback?error=access_denied&state=${authorize.searchParams.get("state")}`, {
    headers: { Cookie: cookieHeader(jar), ...headers },
  });
}

describe("the provider's cancel (access_denied) at the callback", () => {
  it("answers a 400 page whose Try again restarts the same sign-in and whose Back goes home", async () => {
    const res = await cancelled(`return_to=${encodeURIComponent("/account/sessions?tab=1")}`);
    const html = await htmlOf(res, 400);
    expect(html).toContain("Sign-in cancelled");
    expect(html).toContain("The sign-in was cancelled or not allowed.");
    expect(actionLinks(html).map((l) => l.label)).toEqual(["Try again", "Back"]);
    const again = linkTo(html, "Try again");
    expect(again).toBe(`/auth/login?return_to=${encodeURIComponent("/account/sessions?tab=1")}`);
    expect(linkTo(html, "Back")).toBe("/");
    // The flow is spent: its cookie is cleared.
    expect(res.headers.getSetCookie().some((c) => /Max-Age=0/i.test(c))).toBe(true);

    // Following "Try again" starts a new flow that comes back to the same place.
    const restart = await send(again);
    expect(restart.status).toBe(302);
    expect(new URL(restart.headers.get("Location")!).pathname).toBe("/user_management/authorize");
    const home = await send(linkTo(html, "Back"), { headers: BROWSER });
    expect(home.status).toBe(200);
  });

  it("keeps a listed app's return_to, the organization and a step-up's max_age; Back goes to that app", async () => {
    const target = `${APP}/org/acme/dashboard`;
    const html = await htmlOf(
      await cancelled(`return_to=${encodeURIComponent(target)}&organization_id=${ACME}&max_age=300`),
      400,
    );
    const again = new URL(linkTo(html, "Try again"), ORIGIN);
    expect(again.pathname).toBe("/auth/login");
    expect(again.searchParams.get("return_to")).toBe(target);
    expect(again.searchParams.get("organization_id")).toBe(ACME);
    expect(again.searchParams.get("max_age")).toBe("300");
    expect(linkTo(html, "Back")).toBe(`${APP}/`);
    expectSafeLinks(html, [APP]);
  });

  it.each([
    "https://evil.example/phish",
    "//evil.example/x",
    "/\\evil.example",
    "javascript:alert(1)",
    "%2F%2Fevil.example",
  ])("never links to a return_to of another origin (%s)", async (returnTo) => {
    const html = await htmlOf(await cancelled(`return_to=${encodeURIComponent(returnTo)}`), 400);
    expect(html).not.toContain("evil.example");
    expect(html).not.toContain("javascript:");
    expect(linkTo(html, "Try again")).toBe("/auth/login");
    expect(linkTo(html, "Back")).toBe("/");
    expectSafeLinks(html);
  });

  it("a crafted callback (no flow of this browser) offers a plain new sign-in, nothing from the query", async () => {
    const res = await send(
      `/auth/callback?error=access_denied&state=x&return_to=${encodeURIComponent("https://evil.example/")}`,
      { headers: BROWSER },
    );
    const html = await htmlOf(res, 400);
    expect(actionLinks(html)).toEqual([
      { label: "Try again", href: "/auth/login" },
      { label: "Back", href: "/" },
    ]);
    expect(html).not.toContain("evil.example");
  });

  it("another provider error keeps its fixed words under a neutral title", async () => {
    const { jar, authorize } = await startLogin();
    const res = await send(`/auth/callback?error=server_error&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar), ...BROWSER },
    });
    const html = await htmlOf(res, 400);
    expect(html).toContain("Not signed in");
    expect(linkTo(html, "Try again")).toBe("/auth/login");
  });

  it("API clients get the same 400 as JSON", async () => {
    const body = await jsonOf(await cancelled("return_to=%2Faccount%2Fsessions", JSON_CLIENT), 400);
    expect(body.error).toBe("access_denied");
  });
});

describe("403 organization_not_allowed at the callback", () => {
  // Margaret has no organization: the provider names none, so the one the sign-in asked for is refused.
  async function signInto(organizationId: string, headers: Record<string, string>): Promise<Response> {
    const { jar, authorize } = await startLogin(
      `organization_id=${organizationId}&return_to=${encodeURIComponent("/account/sessions")}`,
    );
    const code = ((await (await providerCode(authorize, MARGARET)).json()) as { code: string }).code;
    return send(`/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar), ...headers },
    });
  }

  it("links a sign-in with another account, a sign-out and home", async () => {
    const res = await signInto(GLOBEX, BROWSER);
    const html = await htmlOf(res, 403);
    expect(html).toContain("You are not a member of the organization this sign-in asked for.");
    expect(actionLinks(html)).toEqual([
      { label: "Sign in with another account", href: "/auth/login" },
      { label: "Sign out", href: "/auth/logout" },
      { label: "Home", href: "/" },
    ]);
    // No session was made: nothing but the flow cookie's removal.
    expect(res.headers.getSetCookie().every((c) => /Max-Age=0/i.test(c))).toBe(true);
    const restart = await send(linkTo(html, "Sign in with another account"));
    expect(restart.status).toBe(302);
    expect(new URL(restart.headers.get("Location")!).pathname).toBe("/user_management/authorize");
  });

  it("API clients get 403 JSON", async () => {
    expect((await jsonOf(await signInto(GLOBEX, JSON_CLIENT), 403)).error).toBe("organization_not_allowed");
  });
});

describe("404 on the auth worker", () => {
  it("an unknown path is a page with a working Home link, not_found JSON for API clients", async () => {
    const html = await htmlOf(await send("/no/such/page", { headers: BROWSER }), 404);
    expect(html).toContain("Page not found");
    expect(actionLinks(html)).toEqual([{ label: "Home", href: "/" }]);
    expect((await send("/", { headers: BROWSER })).status).toBe(200);
    const body = await jsonOf(await send("/no/such/page", { headers: JSON_CLIENT }), 404);
    expect(body.error).toBe("not_found");
  });

  it("never reflects the path", async () => {
    const html = await htmlOf(await send("/%3Cscript%3Ealert(1)%3C/script%3E", { headers: BROWSER }), 404);
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("alert(1)");
  });
});

describe("429 on the auth worker", () => {
  it("the login limit's page says how long to wait, keeps the headers and links back", async () => {
    // 20 per fixed 60 s window: keep going until refused (a window edge only delays it).
    const ip = "203.0.113.119";
    let last: Response | undefined;
    for (let i = 0; i < 60 && last?.status !== 429; i++) {
      last = await send("/auth/login?return_to=%2Faccount%2Fsessions", {
        headers: { "CF-Connecting-IP": ip, ...BROWSER },
      });
    }
    const retryAfter = Number(last!.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(last!.headers.get("RateLimit-Policy")).toContain("q=20;w=60");
    const html = await htmlOf(last!, 429);
    expect(html).toContain("Too many requests");
    expect(html).toContain(`Please wait ${retryAfter === 1 ? "1 second" : `${retryAfter} seconds`}`);
    expect(linkTo(html, "Try again")).toBe("/auth/login?return_to=%2Faccount%2Fsessions");
    expect(linkTo(html, "Home")).toBe("/");

    const json = await send("/auth/login", { headers: { "CF-Connecting-IP": ip, ...JSON_CLIENT } });
    expect(json.headers.get("Retry-After")).not.toBeNull();
    expect((await jsonOf(json, 429)).error).toBe("rate_limited");
  });
});

describe("503 on the auth worker", () => {
  const refused: WorkerEnv = { ...live, SESSION_SECRET: "changeme" };

  it("a refused configuration: a page with Try again (this URL) and Home; JSON for API clients", async () => {
    const res = await send("/account/sessions?x=1", { headers: BROWSER }, refused);
    expect(res.headers.get("Retry-After")).toBe("60");
    const html = await htmlOf(res, 503);
    expect(html).toContain("Service unavailable");
    expect(html).not.toContain("SESSION_SECRET");
    expect(actionLinks(html)).toEqual([
      { label: "Try again", href: "/account/sessions?x=1" },
      { label: "Home", href: "/" },
    ]);
    expect((await jsonOf(await send("/account/sessions", { headers: JSON_CLIENT }, refused), 503)).error).toBe(
      "service_unavailable",
    );
  });

  it("Try again never becomes a link to another host, and a POST has none", async () => {
    const html = await htmlOf(await send(`${ORIGIN}//evil.example/x`, { headers: BROWSER }, refused), 503);
    expect(html).not.toContain("//evil.example");
    expect(actionLinks(html)).toEqual([{ label: "Home", href: "/" }]);
    const post = await htmlOf(await send("/auth/logout", { method: "POST", headers: BROWSER }, refused), 503);
    expect(actionLinks(post).map((l) => l.label)).toEqual(["Home"]);
  });

  it("the session store down: a page that offers Try again, without the store's words", async () => {
    const jar = await signedInJar();
    const down: WorkerEnv = { ...live, SESSIONS: brokenKV() };
    const res = await send("/account/sessions", { headers: { Cookie: cookieHeader(jar), ...BROWSER } }, down);
    const html = await htmlOf(res, 503);
    expect(html).toContain("session_store_unavailable");
    expect(html).not.toContain("storage exploded");
    expect(linkTo(html, "Try again")).toBe("/account/sessions");
    expect(linkTo(html, "Home")).toBe("/");
  });
});

describe("the auth worker's 429 page counts its seconds right", () => {
  it("says '1 second' for one, 'N seconds' otherwise", async () => {
    const { HtmlRateLimitPage } = await import("../../workers/auth/limits");
    for (const [after, words] of [
      ["1", "Please wait 1 second and try again."],
      ["42", "Please wait 42 seconds and try again."],
    ] as const) {
      // A limiter that refuses with this wait (the page only reads its answer's status and headers).
      const refusing = { handle: async () => new Response(null, { status: 429, headers: { "Retry-After": after } }) };
      const page = await new HtmlRateLimitPage(refusing).handle(
        new Request("https://auth.example.com/auth/login", { headers: BROWSER }),
        async () => new Response("never"),
      );
      expect(page.status).toBe(429);
      expect(await page.text()).toContain(words);
    }
  });
});
