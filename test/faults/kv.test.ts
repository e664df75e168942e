/**
 * KV down. Local KV cannot be made to fail on demand, so the SESSIONS binding
 * is replaced by a stand-in that rejects every call (test/faults/broken.ts);
 * everything else is the deployed auth worker and its real bindings.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { brokenKV } from "./broken";
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

describe("the session store (KV) failing", () => {
  it("AuthMiddleware answers 503 for a signed-in request instead of letting it in or calling it signed out", async () => {
    const { cookie } = await signIn();
    for (const accept of ["application/json", "text/html"]) {
      const res = await env.KV_DOWN.fetch(`${ORIGIN}/api/me`, { headers: { Cookie: cookie, Accept: accept } });
      await expectCleanError(res, 503, "session_store_unavailable");
    }
    // The same session is fine once KV answers again.
    const healthy = await exports.default.fetch(`${ORIGIN}/api/me`, { headers: { Cookie: cookie } });
    expect(healthy.status).toBe(200);
  });

  it("pages that resolve the user (/, /account/sessions) answer 503 too", async () => {
    const { cookie } = await signIn();
    for (const path of ["/", "/account/sessions"]) {
      const res = await env.KV_DOWN.fetch(`${ORIGIN}${path}`, { headers: { Cookie: cookie, Accept: "text/html" } });
      await expectCleanError(res, 503, "session_store_unavailable");
    }
  });

  it("a request without a session cookie never needs KV: 401 / login redirect as usual", async () => {
    const api = await env.KV_DOWN.fetch(`${ORIGIN}/api/me`, { headers: { Accept: "application/json" } });
    await expectCleanError(api, 401, "unauthenticated");
    const page = await env.KV_DOWN.fetch(`${ORIGIN}/account/sessions`, { redirect: "manual" });
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toBe("/auth/login?return_to=%2Faccount%2Fsessions");
  });

  it("logout says the store failed (a 5xx page) and still clears the cookie", async () => {
    const { cookie } = await signIn();
    const res = await env.KV_DOWN.fetch(`${ORIGIN}/auth/logout`, {
      headers: { Cookie: cookie, Accept: "text/html" },
      redirect: "manual",
    });
    const page = await expectCleanError(res, "5xx");
    expect(page).toContain("<h1>Something went wrong</h1>");
    expect(res.headers.getSetCookie().join("\n")).toMatch(/__Host-gh_session=; Max-Age=0/);
  });

  // Known gap, left to workers/auth: SessionManager.destroySession (#end) lets the raw KV error
  // through, so logout answers 500 internal_error instead of the store's 503. Flip to `it` once fixed.
  it("logout names the failure: 503 session_store_unavailable", async () => {
    const { cookie } = await signIn();
    const res = await env.KV_DOWN.fetch(`${ORIGIN}/auth/logout`, {
      headers: { Cookie: cookie, Accept: "text/html" },
      redirect: "manual",
    });
    await expectCleanError(res, 503, "session_store_unavailable");
  });

  it("the callback cannot save a session: a 503 page, no session cookie, nothing stored", async () => {
    const user = person();
    const res = await loginThrough({ ...env, SESSIONS: brokenKV() }, user);
    const page = await expectCleanError(res, 503, "session_store_unavailable");
    expect(page).toContain("Sign in again");
    expect(res.headers.getSetCookie().join("\n")).not.toMatch(/gh_session=[^;]/);
    expect(await sessionKeysOf(user.id)).toEqual([]);
  });

  it("AuthService.resolveUser fails (never null), and the consumer answers 503 JSON", async () => {
    const { cookie } = await signIn();
    expect(await rejection(env.AUTH_KV_DOWN.resolveUser(cookie))).toMatchObject({
      code: "session_store_unavailable",
      status: 503,
    });
    const res = await consumerFetch("AUTH_KV_DOWN", "/api/me", { headers: { Cookie: cookie } });
    await expectCleanError(res, 503, "auth_service_unavailable");
    const page = await consumerFetch("AUTH_KV_DOWN", "/dashboard", {
      headers: { Cookie: cookie, Accept: "text/html" },
    });
    await expectCleanError(page, 503, "auth_service_unavailable");
  });
});
