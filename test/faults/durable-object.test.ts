/**
 * A session object failing: USER_SESSIONS bound to `BrokenUserSessions`, a
 * real Durable Object whose every call throws inside the object. Strict
 * revocation asks the object on every request, so it must fail closed (503),
 * never let a possibly revoked session in; eventual mode does not ask it.
 */
import { env } from "cloudflare:workers";
import { SessionManager } from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";
import { authApplication } from "../../workers/auth/app";
import {
  consumerFetch,
  expectCleanError,
  loginThrough,
  ORIGIN,
  person,
  rejection,
  sessionKeysOf,
  signIn,
} from "./helpers";

describe("the user's session object failing", () => {
  it("strict mode: AuthMiddleware answers 503, never lets the session in", async () => {
    const { cookie } = await signIn();
    for (const accept of ["application/json", "text/html"]) {
      const res = await env.OBJECTS_DOWN.fetch(`${ORIGIN}/api/me`, {
        headers: { Cookie: cookie, Accept: accept },
      });
      await expectCleanError(res, 503, "session_store_unavailable");
    }
    const account = await env.OBJECTS_DOWN.fetch(`${ORIGIN}/account/sessions`, {
      headers: { Cookie: cookie, Accept: "text/html" },
    });
    await expectCleanError(account, 503, "session_store_unavailable");
  });

  it("eventual mode resolves from KV alone, so the same failure does not reach the request", async () => {
    const { cookie } = await signIn();
    const request = new Request(`${ORIGIN}/`, { headers: { Cookie: cookie } });
    const strict = new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.BROKEN_USER_SESSIONS });
    expect(await rejection(strict.resolveUser(request))).toMatchObject({
      code: "session_store_unavailable",
      status: 503,
    });
    const eventual = new SessionManager(env.SESSIONS, env.SESSION_SECRET, {
      userSessions: env.BROKEN_USER_SESSIONS,
      revocation: "eventual",
    });
    expect((await eventual.resolveUser(request))?.id).toMatch(/^user_fault_/);
  });

  it("the live channel refuses the upgrade with 503 JSON", async () => {
    const user = person();
    const { cookie } = await signIn(user);
    const res = await env.OBJECTS_DOWN.fetch(`${ORIGIN}/parties/user-sessions/${user.id}`, {
      headers: { Cookie: cookie, Upgrade: "websocket" },
    });
    expect(res.webSocket).toBeNull();
    await expectCleanError(res, 503, "session_store_unavailable");
  });

  it("the callback cannot register the session: a 503 page, no cookie, and the KV record is removed again", async () => {
    const user = person();
    const res = await loginThrough({ ...env, USER_SESSIONS: env.BROKEN_USER_SESSIONS }, user);
    await expectCleanError(res, 503, "session_store_unavailable");
    expect(res.headers.getSetCookie().join("\n")).not.toMatch(/gh_session=[^;]/);
    expect(await sessionKeysOf(user.id)).toEqual([]);
  });

  it("AuthService.resolveSession fails (never null), and the consumer answers 503 JSON", async () => {
    const { cookie } = await signIn();
    expect(await rejection(env.AUTH_OBJECTS_DOWN.resolveSession(cookie))).toMatchObject({
      code: "session_store_unavailable",
    });
    const res = await consumerFetch("AUTH_OBJECTS_DOWN", "/api/me", { headers: { Cookie: cookie } });
    await expectCleanError(res, 503, "auth_service_unavailable");
  });

  it("the admin endpoint answers a 5xx JSON error when the object cannot revoke", async () => {
    const { sessionId } = await signIn();
    const res = await env.OBJECTS_DOWN.fetch(`${ORIGIN}/admin/sessions/${sessionId}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${env.ADMIN_API_TOKEN}` },
    });
    expect(res.headers.get("Content-Type")).toContain("application/json");
    const body = JSON.parse(await expectCleanError(res, "5xx")) as { error: unknown; message: unknown };
    expect(typeof body.error).toBe("string");
    expect(typeof body.message).toBe("string");
  });

  it("the admin endpoint names the failure: 503 session_store_unavailable", async () => {
    const { sessionId } = await signIn();
    const res = await env.OBJECTS_DOWN.fetch(`${ORIGIN}/admin/sessions/${sessionId}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${env.ADMIN_API_TOKEN}` },
    });
    await expectCleanError(res, 503, "session_store_unavailable");
  });

  it("eventual mode: revoking from /account/sessions while the object is down answers 503, like the admin route", async () => {
    const { cookie } = await signIn();
    const other = await signIn();
    const app = authApplication({ ...env, USER_SESSIONS: env.BROKEN_USER_SESSIONS, GATEHOUSE_REVOCATION: "eventual" });
    // A CSRF token is issued on any GET under /account/ (the listing itself fails: the object is down).
    const page = await app.fetch(new Request(`${ORIGIN}/account/sessions`, { headers: { Cookie: cookie } }));
    const csrf = page.headers
      .getSetCookie()
      .find((c) => c.startsWith("__Host-gh_csrf="))!
      .split(";")[0]!;
    for (const accept of ["application/json", "text/html"]) {
      const res = await app.fetch(
        new Request(`${ORIGIN}/account/sessions/${other.sessionId}/revoke`, {
          method: "POST",
          headers: {
            Cookie: `${cookie}; ${csrf}`,
            "X-CSRF-Token": csrf.split("=")[1]!,
            Origin: ORIGIN,
            Accept: accept,
          },
        }),
      );
      await expectCleanError(res, 503, "session_store_unavailable");
    }
  });
});
