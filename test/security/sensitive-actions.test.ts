/**
 * Issue 18: guardrails for sensitive actions, through the real routes and the local provider.
 * Step-up: the organization console (policy, kill switch) needs a sign-in of the last five
 * minutes; an older one goes back through the provider with `max_age` (and `prompt=login`), the
 * callback checks the provider's `auth_time`, the browser's old session ends (replaced) and the
 * person lands back on the action. Any sign-in (issue 19) replaces the browser's session, told to
 * its tabs and recorded on its owner's timeline; an impersonation never does. Impersonation: the session records who is signed in as whom,
 * every page says so, it cannot sign out other sessions or open the console, and it ends within
 * the impersonation timeout.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  callback,
  cookieHeader,
  cookiesFrom,
  idp,
  live,
  ORIGIN,
  providerCode,
  send,
  startLogin,
} from "./helpers/world";

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

const meWith = (session: string) =>
  send("/api/me", { headers: { Cookie: `__Host-gh_session=${session}`, Accept: "application/json" } });

async function sessionIdOf(session: string): Promise<string> {
  return ((await (await meWith(session)).json()) as { sessionId: string }).sessionId;
}

/** A second sign-in of `userId` in the browser whose cookies are `jar` (the flow's cookie added to them). */
async function browserSignIn(jar: Record<string, string>, userId: string) {
  const start = await send(`/auth/login?organization_id=${ACME}`, { headers: { Cookie: cookieHeader(jar) } });
  cookiesFrom(start, jar);
  const authorize = new URL(start.headers.get("Location")!);
  const code = ((await (await providerCode(authorize, userId, ACME)).json()) as { code: string }).code;
  return callback(authorize, code, jar);
}

/** A tab of the auth worker on the session's live channel: resolves with the first `session.revoked` it hears. */
async function liveTab(session: string, userId: string) {
  const res = await send(`/parties/user-sessions/${userId}`, {
    headers: { Upgrade: "websocket", Origin: ORIGIN, Cookie: `__Host-gh_session=${session}` },
  });
  const ws = res.webSocket;
  if (!ws) throw new Error(`the live channel answered ${res.status}`);
  ws.accept();
  const revoked = new Promise<Record<string, unknown>>((resolve, reject) => {
    ws.addEventListener("message", (e) => {
      const message = (JSON.parse(String(e.data)) as { json?: Record<string, unknown> }).json;
      if (message?.type === "session.revoked") resolve(message);
    });
    ws.addEventListener("close", () => reject(new Error("closed before session.revoked")));
  });
  revoked.catch(() => {}); // awaited by the test; a close after the message is not a failure
  return { revoked };
}

type TimelineEvent = { type: string; sessionId: string | null; detail: Record<string, unknown> };

/** The user's security timeline (newest first), through the admin API. */
async function timelineOf(userId: string): Promise<TimelineEvent[]> {
  const res = await send(`/admin/users/${userId}/timeline?limit=100`, {
    headers: { Authorization: `Bearer ${live.ADMIN_API_TOKEN}`, Accept: "application/json" },
  });
  return ((await res.json()) as { events: TimelineEvent[] }).events;
}

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

  it("an ordinary sign-in in a browser with a session ends that session: replaced, on the timeline, its tabs told", async () => {
    const { jar } = await signIn(ADA);
    const own = jar["__Host-gh_session"]!;
    const oldId = await sessionIdOf(own);
    const tab = await liveTab(own, ADA);
    const again = await browserSignIn(jar, ADA);
    expect(again.status).toBe(302);
    expect(jar["__Host-gh_session"]).not.toBe(own);
    expect((await meWith(jar["__Host-gh_session"]!)).status).toBe(200);
    // The old cookie is refused at once, and the old session's tab heard why (it reloads into the new one).
    expect((await meWith(own)).status).toBe(401);
    expect(await tab.revoked).toMatchObject({ type: "session.revoked", sessionId: oldId, reason: "replaced" });
    const ended = (await timelineOf(ADA)).find((e) => e.sessionId === oldId && e.type === "session.signed_out");
    expect(ended?.detail).toMatchObject({ reason: "replaced", sessions: 1 });
    const activity = await send("/account/activity", { headers: { Cookie: cookieHeader(jar), Accept: "text/html" } });
    expect(await activity.text()).toContain("Signed in again on this device (the old session ended)");
  });

  it("another person signing in in that browser ends the first person's session, recorded on the first person's timeline", async () => {
    const { jar } = await signIn(ADA);
    const adas = jar["__Host-gh_session"]!;
    const oldId = await sessionIdOf(adas);
    const tab = await liveTab(adas, ADA);
    await browserSignIn(jar, ALAN);
    const now = (await (await meWith(jar["__Host-gh_session"]!)).json()) as { user: { id: string } };
    expect(now.user.id).toBe(ALAN);
    expect((await meWith(adas)).status).toBe(401);
    // Not "replaced": the tab of Ada's session must not reload into Alan's; it goes to the signed-out page.
    expect(await tab.revoked).toMatchObject({ sessionId: oldId, reason: "replaced_by_other_user" });
    const ended = (await timelineOf(ADA)).find((e) => e.sessionId === oldId && e.type === "session.signed_out");
    expect(ended?.detail).toMatchObject({ reason: "replaced_by_other_user", sessions: 1 });
  });

  it("an operator's impersonation in a browser with a session never ends that session", async () => {
    const { jar } = await signIn(ADA);
    const own = jar["__Host-gh_session"]!;
    const armed = await fetch(`${idp.url}/__local/impersonations`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user_id: ADA, impersonator_email: "support@acme.test" }),
    });
    expect(armed.status).toBe(201);
    const answer = await browserSignIn(jar, ADA);
    expect(answer.status).toBe(302);
    expect(jar["__Host-gh_session"]).not.toBe(own);
    expect((await meWith(own)).status).toBe(200);
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
