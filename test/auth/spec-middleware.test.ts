/**
 * Issue 26 item 4: the spec's middleware rows (../shared/SPEC.md, "Middleware"), each built from what
 * the spec itself provides (`new SessionManager(kv, secret)`, `RoleMiddleware(...roles)`,
 * `OrgResolver(strategies)`) and used as its row says. Each test is named after its row. Two calls
 * used to differ from the rows: a browser's form POST without a session got 401 JSON instead of the
 * redirect to /auth/login, and a stale `X-CSRF-Token` header made CsrfMiddleware ignore a `_csrf`
 * field that did equal the cookie.
 */
import { env } from "cloudflare:workers";
import { compose } from "gatehouse-workers";
import {
  AuthMiddleware,
  CsrfMiddleware,
  currentUser,
  GuestMiddleware,
  OrgResolver,
  RoleMiddleware,
  SessionManager,
} from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";
import { ada, bob, ORIGIN } from "./helpers";

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** The spec's own SessionManager, and the session cookie of a session it created. */
async function signedIn(user = ada, organizationId?: string) {
  const sessions = new SessionManager(env.SESSIONS, env.SESSION_SECRET);
  const { sessionId, response } = await sessions.createSession(user, organizationId);
  const cookie = response.headers.get("Set-Cookie")!.split(";")[0]!;
  return { sessions, sessionId, cookie };
}

const ok = (request: Request) => new Response(`ok ${currentUser(request)?.id ?? "guest"}`);

describe("SPEC: AuthMiddleware", () => {
  it("requires a valid session; when none, redirects to /auth/login", async () => {
    const { sessions, sessionId, cookie } = await signedIn();
    const run = compose([new AuthMiddleware(sessions)], ok);
    const page = (headers: Record<string, string> = {}, init: RequestInit = {}) =>
      run(new Request(`${ORIGIN}/reports`, { ...init, headers: { Accept: BROWSER_ACCEPT, ...headers } }));

    const none = await page();
    expect(none.status).toBe(302);
    expect(new URL(none.headers.get("Location")!, ORIGIN).pathname).toBe("/auth/login");
    const tampered = await page({ Cookie: `${cookie.slice(0, -2)}xx` });
    expect(new URL(tampered.headers.get("Location")!, ORIGIN).pathname).toBe("/auth/login");
    // A browser's form submission is a navigation too: 303 to the login page (a form's action is no
    // page to return to, so no return_to).
    const form = await page({ "Content-Type": "application/x-www-form-urlencoded" }, { method: "POST", body: "a=1" });
    expect(form.status).toBe(303);
    expect(form.headers.get("Location")).toBe("/auth/login");

    expect(await (await page({ Cookie: cookie })).text()).toBe(`ok ${ada.id}`);
    await sessions.destroySession(sessionId);
    expect((await page({ Cookie: cookie })).status).toBe(302);
  });

  it("still answers 401 JSON to calls that cannot follow a redirect (fetch, JSON clients)", async () => {
    const { sessions } = await signedIn();
    const run = compose([new AuthMiddleware(sessions)], ok);
    expect((await run(new Request(`${ORIGIN}/api/x`, { method: "POST" }))).status).toBe(401);
    expect((await run(new Request(`${ORIGIN}/api/x`, { headers: { Accept: "application/json" } }))).status).toBe(401);
  });
});

describe("SPEC: GuestMiddleware", () => {
  it("requires no valid session; when the user is authenticated, redirects to /", async () => {
    const { sessions, cookie } = await signedIn();
    const run = compose([new GuestMiddleware(sessions)], ok);
    const authenticated = await run(new Request(`${ORIGIN}/signin`, { headers: { Cookie: cookie } }));
    expect(authenticated.status).toBe(302);
    expect(authenticated.headers.get("Location")).toBe("/");
    expect(await (await run(new Request(`${ORIGIN}/signin`))).text()).toBe("ok guest");
    const invalid = await run(new Request(`${ORIGIN}/signin`, { headers: { Cookie: `${cookie}x` } }));
    expect(await invalid.text()).toBe("ok guest");
  });
});

describe("SPEC: RoleMiddleware", () => {
  it("takes one or more role strings; the user's role in the current organization must be one of them, else 403", async () => {
    const acmeAdmin = await signedIn(ada, "org_acme"); // admin in acme
    const globexMember = await signedIn(ada, "org_globex"); // member in globex
    const acmeMember = await signedIn(bob, "org_acme");
    const guard = (cookie: string, ...roles: string[]) =>
      compose(
        [new AuthMiddleware(acmeAdmin.sessions), new RoleMiddleware(...roles)],
        ok,
      )(new Request(`${ORIGIN}/admin`, { headers: { Cookie: cookie } }));

    expect((await guard(acmeAdmin.cookie, "admin")).status).toBe(200);
    expect((await guard(acmeMember.cookie, "admin")).status).toBe(403);
    expect((await guard(globexMember.cookie, "admin")).status).toBe(403);
    expect((await guard(globexMember.cookie, "admin", "member")).status).toBe(200);
    expect((await guard(acmeMember.cookie, "owner", "admin", "member")).status).toBe(200);
  });

  it("takes the current organization from OrgResolver when the request names one", async () => {
    const { sessions, cookie } = await signedIn(ada, "org_acme");
    const run = compose(
      [new AuthMiddleware(sessions, { orgResolver: new OrgResolver(["path-prefix"]) }), new RoleMiddleware("admin")],
      ok,
    );
    const at = (path: string) => run(new Request(`${ORIGIN}${path}`, { headers: { Cookie: cookie } }));
    expect((await at("/org/acme/settings")).status).toBe(200);
    expect((await at("/org/globex/settings")).status).toBe(403);
    expect((await at("/org/initech/settings")).status).toBe(403);
  });
});

describe("SPEC: CsrfMiddleware", () => {
  /** A GET through the middleware: the browser gets the CSRF cookie, whose value is the token. */
  async function withToken(csrf: CsrfMiddleware, run: (r: Request) => Response | Promise<Response>, cookie?: string) {
    const page = await run(new Request(`${ORIGIN}/form`, { headers: cookie ? { Cookie: cookie } : {} }));
    const set = page.headers.getSetCookie().find((line) => line.startsWith(`${csrf.cookieName}=`))!;
    const token = set.split(";")[0]!.slice(csrf.cookieName.length + 1);
    return { token, cookies: [cookie, `${csrf.cookieName}=${token}`].filter(Boolean).join("; ") };
  }

  it.each(["POST", "PUT", "PATCH", "DELETE"])(
    "on %s, the _csrf form field or the X-CSRF-Token header must equal the CSRF cookie value",
    async (method) => {
      const { sessions, cookie } = await signedIn();
      const csrf = new CsrfMiddleware(sessions);
      const run = compose([csrf], () => new Response("saved"));
      const { token, cookies } = await withToken(csrf, run, cookie);
      const send = (headers: Record<string, string>, body?: BodyInit) =>
        run(new Request(`${ORIGIN}/x`, { method, headers: { Cookie: cookies, ...headers }, body }));
      const urlencoded = { "Content-Type": "application/x-www-form-urlencoded" };
      const multipart = () => {
        const form = new FormData();
        form.set("_csrf", token);
        return form;
      };

      expect((await send({ "X-CSRF-Token": token })).status).toBe(200);
      expect((await send(urlencoded, new URLSearchParams({ _csrf: token, title: "Q3" }))).status).toBe(200);
      expect((await send({}, multipart())).status).toBe(200);
      // Either one equal is enough: a stale header does not hide a good field.
      expect(
        (await send({ ...urlencoded, "X-CSRF-Token": `${token}x` }, new URLSearchParams({ _csrf: token }))).status,
      ).toBe(200);

      expect((await send({})).status).toBe(403);
      expect((await send({ "X-CSRF-Token": `${token}x` })).status).toBe(403);
      expect((await send(urlencoded, new URLSearchParams({ _csrf: `${token}x` }))).status).toBe(403);
      const noCookie = await run(
        new Request(`${ORIGIN}/x`, { method, headers: { Cookie: cookie, "X-CSRF-Token": token } }),
      );
      expect(noCookie.status).toBe(403);
    },
  );

  it("checks only POST, PUT, PATCH and DELETE, and works for a guest as for a session", async () => {
    const sessions = new SessionManager(env.SESSIONS, env.SESSION_SECRET);
    const csrf = new CsrfMiddleware(sessions);
    const run = compose([csrf], () => new Response("fine"));
    for (const method of ["GET", "HEAD", "OPTIONS"]) {
      expect((await run(new Request(`${ORIGIN}/x`, { method }))).status).toBe(200);
    }
    const { token, cookies } = await withToken(csrf, run);
    const post = (header: string) =>
      run(new Request(`${ORIGIN}/x`, { method: "POST", headers: { Cookie: cookies, "X-CSRF-Token": header } }));
    expect((await post(token)).status).toBe(200);
    expect((await post("forged")).status).toBe(403);
  });
});
