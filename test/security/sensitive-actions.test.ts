/**
 * Issue 18: guardrails for sensitive actions, through the real routes and the local provider.
 * Step-up: the organization console (policy, kill switch) needs a sign-in of the last five
 * minutes; an older one goes back through the provider with `max_age` (and `prompt=login`), the
 * callback checks the provider's `auth_time`, the browser's old session ends (replaced) and the
 * person lands back on the action. Impersonation: the session records who is signed in as whom,
 * every page says so, it cannot sign out other sessions or open the console, and it ends within
 * the impersonation timeout.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callback, cookieHeader, cookiesFrom, idp, ORIGIN, providerCode, send, startLogin } from "./helpers/world";

const ADA = "user_01ADALOVELACE0000000000000";
const ALAN = "user_01ALANTURING00000000000000";
const ACME = "org_01ACME00000000000000000000";
const CONSOLE = `/account/organizations/${ACME}`;
const HOUR = 3600;

/** Signs `userId` into ACME; `authTime` (Unix seconds) makes an old sign-in. Returns the jar. */
async function signIn(userId: string, authTime?: number, query = `organization_id=${ACME}`) {
  const { jar, authorize } = await startLogin(query);
  const res = await providerCode(authorize, userId, ACME, authTime);
  const code = ((await res.json()) as { code: string }).code;
  const answer = await callback(authorize, code, jar);
  return { jar, answer, authorize };
}

const html = (jar: Record<string, string>, path: string) =>
  send(path, { headers: { Cookie: cookieHeader(jar), Accept: "text/html" } });

describe("step-up (RecentAuthMiddleware) on the organization console", () => {
  it("a fresh sign-in opens it; an hour-old one goes through a forced re-authentication and comes back", async () => {
    const fresh = await signIn(ADA);
    const open = await html(fresh.jar, CONSOLE);
    expect(open.status).toBe(200);
    expect(await open.text()).toContain("Session policy");

    const old = await signIn(ADA, Math.floor(Date.now() / 1000) - HOUR);
    const oldSession = old.jar["__Host-gh_session"];
    const refused = await html(old.jar, CONSOLE);
    expect(refused.status).toBe(302);
    const login = refused.headers.get("Location")!;
    expect(login).toBe(`/auth/login?return_to=${encodeURIComponent(CONSOLE)}&max_age=300`);

    // The login passes max_age (and prompt=login) to the provider and remembers it for the callback.
    const start = await send(login, { headers: { Cookie: cookieHeader(old.jar) } });
    cookiesFrom(start, old.jar);
    const authorize = new URL(start.headers.get("Location")!);
    expect(authorize.searchParams.get("max_age")).toBe("300");
    expect(authorize.searchParams.get("prompt")).toBe("login");
    const code = ((await (await providerCode(authorize, ADA, ACME)).json()) as { code: string }).code;
    const back = await callback(authorize, code, old.jar);
    expect(back.status).toBe(302);
    expect(back.headers.get("Location")).toBe(CONSOLE);
    expect(old.jar["__Host-gh_session"]).not.toBe(oldSession);
    expect((await html(old.jar, CONSOLE)).status).toBe(200);
    // The browser's previous session ended (replaced), not left behind the new cookie.
    const stale = await send("/api/me", {
      headers: { Cookie: `__Host-gh_session=${oldSession}`, Accept: "application/json" },
    });
    expect(stale.status).toBe(401);
  });

  it("a step-up callback whose provider sign-in is not recent is refused (403 step_up_required)", async () => {
    const { jar } = await signIn(ADA, Math.floor(Date.now() / 1000) - HOUR);
    const start = await send(`/auth/login?return_to=${encodeURIComponent(CONSOLE)}&max_age=300`, {
      headers: { Cookie: cookieHeader(jar) },
    });
    cookiesFrom(start, jar);
    const authorize = new URL(start.headers.get("Location")!);
    const stale = Math.floor(Date.now() / 1000) - HOUR;
    const code = ((await (await providerCode(authorize, ADA, ACME, stale)).json()) as { code: string }).code;
    const res = await send(`/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar), Accept: "application/json" },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: "step_up_required" });
  });

  it("a form post with an old sign-in gets step_up_required and where to go; a JSON client too", async () => {
    const { jar } = await signIn(ADA, Math.floor(Date.now() / 1000) - HOUR);
    const csrf = await send("/account/sessions", {
      headers: { Cookie: cookieHeader(jar), Accept: "application/json" },
    });
    cookiesFrom(csrf, jar);
    const post = (accept: string) =>
      send(`${CONSOLE}/kill-switch`, {
        method: "POST",
        headers: {
          Cookie: cookieHeader(jar),
          "X-CSRF-Token": jar["__Host-gh_csrf"]!,
          Origin: ORIGIN,
          Referer: `${ORIGIN}${CONSOLE}`,
          Accept: accept,
        },
      });
    const json = await post("application/json");
    expect(json.status).toBe(403);
    expect(await json.json()).toMatchObject({
      error: "step_up_required",
      login: `/auth/login?return_to=${encodeURIComponent(CONSOLE)}&max_age=300`,
    });
    const page = await post("text/html");
    expect(page.status).toBe(403);
    expect(await page.text()).toContain("Sign in again to continue");
    expect(await env.SESSIONS.get(`org-epoch:${ACME}`)).toBeNull();
  });

  it("an ordinary sign-in, or an operator's impersonation, in a browser with a session never ends that session", async () => {
    const { jar } = await signIn(ADA);
    const own = jar["__Host-gh_session"];
    const again = await startLogin(`organization_id=${ACME}`);
    for (const [name, value] of Object.entries(jar)) again.jar[name] ??= value;
    const code = ((await (await providerCode(again.authorize, ADA, ACME)).json()) as { code: string }).code;
    await callback(again.authorize, code, again.jar);
    const stillOwn = await send("/api/me", {
      headers: { Cookie: `__Host-gh_session=${own}`, Accept: "application/json" },
    });
    expect(stillOwn.status).toBe(200);

    await fetch(`${idp.url}/__local/impersonations`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user_id: ADA, impersonator_email: "support@acme.test" }),
    });
    const operator = await startLogin(`organization_id=${ACME}`);
    for (const [name, value] of Object.entries(jar)) operator.jar[name] ??= value;
    const imp = ((await (await providerCode(operator.authorize, ADA, ACME)).json()) as { code: string }).code;
    await callback(operator.authorize, imp, operator.jar);
    const stillOwnAfter = await send("/api/me", {
      headers: { Cookie: `__Host-gh_session=${own}`, Accept: "application/json" },
    });
    expect(stillOwnAfter.status).toBe(200);
  });

  it("only an admin of the organization gets in; a bad id is 400", async () => {
    const alan = await signIn(ALAN);
    expect((await html(alan.jar, CONSOLE)).status).toBe(403);
    expect((await html(alan.jar, "/account/organizations/not%20an%20id")).status).toBe(400);
  });
});

describe("impersonation", () => {
  async function impersonatedAda() {
    const armed = await fetch(`${idp.url}/__local/impersonations`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user_id: ADA, impersonator_email: "support@acme.test", reason: "Ticket 42" }),
    });
    expect(armed.status).toBe(201);
    return signIn(ADA);
  }

  it("the session records the impersonator: a banner on every page, the timeline says who, it ends within the hour", async () => {
    const { jar } = await impersonatedAda();
    const page = await html(jar, "/account/sessions");
    const text = await page.text();
    expect(text).toContain("Impersonation:");
    expect(text).toContain("support@acme.test");
    expect(text).toContain("Ticket 42");
    const me = await send("/api/me", { headers: { Cookie: cookieHeader(jar), Accept: "application/json" } });
    expect(me.status).toBe(200);
    const activity = await send("/account/activity", {
      headers: { Cookie: cookieHeader(jar), Accept: "application/json" },
    });
    const { events } = (await activity.json()) as { events: { type: string; detail: Record<string, unknown> }[] };
    expect(events.find((e) => e.type === "session.impersonated")?.detail).toEqual({
      impersonator: "support@acme.test",
      reason: "Ticket 42",
    });
    const list = await send("/account/sessions", {
      headers: { Cookie: cookieHeader(jar), Accept: "application/json" },
    });
    const { sessions, currentSessionId } = (await list.json()) as {
      sessions: { id: string; absoluteExpiresAt: number }[];
      currentSessionId: string;
    };
    const current = sessions.find((s) => s.id === currentSessionId)!;
    expect(current.absoluteExpiresAt).toBeLessThanOrEqual(Date.now() + HOUR * 1000);
  });

  it("an impersonated session cannot sign out other sessions or open the console, but can sign itself out", async () => {
    const real = await signIn(ADA);
    const { jar } = await impersonatedAda();
    const csrf = await send("/account/sessions", {
      headers: { Cookie: cookieHeader(jar), Accept: "application/json" },
    });
    cookiesFrom(csrf, jar);
    const post = (path: string) =>
      send(path, {
        method: "POST",
        headers: {
          Cookie: cookieHeader(jar),
          "X-CSRF-Token": jar["__Host-gh_csrf"]!,
          Origin: ORIGIN,
          Accept: "application/json",
        },
      });
    for (const path of ["/account/sessions/revoke-others", "/account/sessions/revoke-all"]) {
      const res = await post(path);
      expect(res.status, path).toBe(403);
      expect(await res.json()).toMatchObject({ error: "impersonation_forbidden" });
    }
    expect((await html(jar, CONSOLE)).status).toBe(403);
    const stillIn = await send("/api/me", { headers: { Cookie: cookieHeader(real.jar), Accept: "application/json" } });
    expect(stillIn.status).toBe(200);
    expect((await post("/auth/logout")).status).toBeLessThan(400);
  });
});
