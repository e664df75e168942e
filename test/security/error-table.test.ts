/**
 * Every row of README's auth-worker error table, reached for real against the running worker
 * (issue 15: one honest contract): its status and its code in the JSON body an API client gets,
 * and no internal detail in it. The consumer's table is test/consumer/error-table.test.ts;
 * test/layers/readme-tables.test.ts checks that every row of both tables has its test here.
 */
import { Application } from "gatehouse-workers";
import { AuthServiceProvider, SessionManager } from "gatehouse-workers/auth";
import { afterEach, describe, expect, it } from "vitest";
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from "../../scripts/local-idp/webhook-signature";
import { authApplication } from "../../workers/auth/app";
import { LOGIN_FLOW_TTL_SECONDS, startLoginFlow } from "../../workers/auth/flow/login-flow";
import { brokenKV } from "../faults/broken";
import {
  cookieHeader,
  cookiesFrom,
  idp,
  live,
  ORIGIN,
  providerCode,
  send,
  signedInJar,
  startLogin,
  type WorkerEnv,
} from "./helpers/world";

const JSON_ACCEPT = { Accept: "application/json" };
const ADMIN = { Authorization: `Bearer ${live.ADMIN_API_TOKEN}`, ...JSON_ACCEPT };
const MARGARET = "user_01MARGARETHAMILTON00000000";
const ACME = "org_01ACME00000000000000000000";
const UNKNOWN_SESSION = "0".repeat(64);
const GRACE = "user_01GRACEHOPPER0000000000000";
const GLOBEX = "org_01GLOBEX000000000000000000";

/** The answer's status and its JSON `error` code; the body must name no file, stack or internal detail. */
async function answer(res: Response): Promise<{ status: number; error: string }> {
  const text = await res.text();
  expect(text).not.toMatch(/\bat .+\.(ts|js):\d+|node_modules|\/work\/|storage exploded/);
  const body = JSON.parse(text) as { error: string; message: string };
  expect(typeof body.message).toBe("string");
  return { status: res.status, error: body.error };
}

/** The jar with a CSRF cookie issued by a safe request, and the token to send with it. */
async function withCsrf(jar: Record<string, string>): Promise<{ jar: Record<string, string>; token: string }> {
  const res = await send("/account/sessions", { headers: { Cookie: cookieHeader(jar), ...JSON_ACCEPT } });
  cookiesFrom(res, jar);
  const token = jar["__Host-gh_csrf"];
  if (!token) throw new Error("no CSRF cookie issued");
  return { jar, token };
}

afterEach(async () => {
  await fetch(`${idp.url}/__local/faults`, { method: "DELETE" });
});

describe("README's auth-worker error table, row by row", () => {
  it("invalid_request 400: a malformed organization_id, a callback without a code", async () => {
    expect(await answer(await send("/auth/login?organization_id=not%20an%20id", { headers: JSON_ACCEPT }))).toEqual({
      status: 400,
      error: "invalid_request",
    });
    const { jar, authorize } = await startLogin();
    const res = await send(`/auth/callback?state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar), ...JSON_ACCEPT },
    });
    expect(await answer(res)).toEqual({ status: 400, error: "invalid_request" });
  });

  it("invalid_state 400: a callback without its flow cookie", async () => {
    const { authorize } = await startLogin();
    const code = ((await (await providerCode(authorize, MARGARET)).json()) as { code: string }).code;
    const res = await send(`/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: JSON_ACCEPT,
    });
    expect(await answer(res)).toEqual({ status: 400, error: "invalid_state" });
  });

  it("login_expired 400: a callback whose flow cookie's ten minutes have passed", async () => {
    // The worker reads the wall clock (createAuthWorker takes no clock), so the flow is made as
    // /auth/login makes it, signed with the worker's own secret, as if started 601 s ago.
    const { setCookies, flow } = await startLoginFlow(new Request(`${ORIGIN}/auth/login`), {
      returnTo: "/",
      secure: true,
      now: Date.now() - (LOGIN_FLOW_TTL_SECONDS + 1) * 1000,
      signer: authApplication(live).container.resolve(SessionManager).signer,
    });
    const flowCookie = setCookies[0]!.split(";")[0]!;
    const res = await send(`/auth/callback?code=never-exchanged&state=${flow.state}`, {
      headers: { Cookie: flowCookie, ...JSON_ACCEPT },
    });
    expect(await answer(res)).toEqual({ status: 400, error: "login_expired" });
    // The same flow within its ten minutes is not expired: the code is what fails then.
    const fresh = await startLoginFlow(new Request(`${ORIGIN}/auth/login`), {
      returnTo: "/",
      secure: true,
      now: Date.now() - (LOGIN_FLOW_TTL_SECONDS - 60) * 1000,
      signer: authApplication(live).container.resolve(SessionManager).signer,
    });
    const again = await send(`/auth/callback?code=never-exchanged&state=${fresh.flow.state}`, {
      headers: { Cookie: fresh.setCookies[0]!.split(";")[0]!, ...JSON_ACCEPT },
    });
    expect(await answer(again)).toEqual({ status: 400, error: "provider_error" });
  });

  it("access_denied 400: the provider answered error=", async () => {
    const { jar, authorize } = await startLogin();
    const res = await send(`/auth/callback?error=access_denied&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar), ...JSON_ACCEPT },
    });
    expect(await answer(res)).toEqual({ status: 400, error: "access_denied" });
  });

  it("provider_error 400: the provider refused the code", async () => {
    const { jar, authorize } = await startLogin();
    const res = await send(`/auth/callback?code=not-a-code&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar), ...JSON_ACCEPT },
    });
    expect(await answer(res)).toEqual({ status: 400, error: "provider_error" });
  });

  it("invalid_session_id 400: account and admin routes with a malformed session id", async () => {
    const { jar, token } = await withCsrf(await signedInJar());
    const account = await send("/account/sessions/not-an-id/revoke", {
      method: "POST",
      headers: { Cookie: cookieHeader(jar), "X-CSRF-Token": token, Origin: ORIGIN, ...JSON_ACCEPT },
    });
    expect(await answer(account)).toEqual({ status: 400, error: "invalid_session_id" });
    const admin = await send("/admin/sessions/not-an-id", { method: "DELETE", headers: ADMIN });
    expect(await answer(admin)).toEqual({ status: 400, error: "invalid_session_id" });
  });

  it("invalid_user_id 400: an admin route with a malformed user id", async () => {
    expect(await answer(await send("/admin/users/not%20an%20id/sessions", { headers: ADMIN }))).toEqual({
      status: 400,
      error: "invalid_user_id",
    });
  });

  it("unauthenticated 401: JSON without a session, the admin endpoint without a token; the live channel without that user's session", async () => {
    expect(await answer(await send("/api/me", { headers: JSON_ACCEPT }))).toEqual({
      status: 401,
      error: "unauthenticated",
    });
    expect(await answer(await send("/account/sessions", { headers: JSON_ACCEPT }))).toEqual({
      status: 401,
      error: "unauthenticated",
    });
    expect(await answer(await send(`/admin/users/${MARGARET}/sessions`, { headers: JSON_ACCEPT }))).toEqual({
      status: 401,
      error: "unauthenticated",
    });
    const channel = await send(`/parties/user-sessions/${MARGARET}`, {
      headers: { Upgrade: "websocket", Origin: ORIGIN },
    });
    expect(await answer(channel)).toEqual({ status: 401, error: "unauthenticated" });
  });

  it("invalid_ticket 401: the live channel with ?join=ticket or a ticket subprotocol, and no valid ticket signed for that user", async () => {
    const jar = await signedInJar();
    const joinOnly = await send(`/parties/user-sessions/${MARGARET}?join=ticket`, {
      headers: { Cookie: cookieHeader(jar), Upgrade: "websocket", Origin: ORIGIN },
    });
    expect(await answer(joinOnly)).toEqual({ status: 401, error: "invalid_ticket" });
    const forged = await send(`/parties/user-sessions/${MARGARET}`, {
      headers: {
        Upgrade: "websocket",
        Origin: ORIGIN,
        "Sec-WebSocket-Protocol": `gatehouse-live, gatehouse-ticket.${"A".repeat(43)}.${Date.now() + 60_000}.${"A".repeat(43)}`,
      },
    });
    expect(await answer(forged)).toEqual({ status: 401, error: "invalid_ticket" });
  });

  it("forbidden 403: a wrong admin token; another user's live channel", async () => {
    const wrong = await send(`/admin/users/${MARGARET}/sessions`, {
      headers: { Authorization: "Bearer not-the-token", ...JSON_ACCEPT },
    });
    expect(await answer(wrong)).toEqual({ status: 403, error: "forbidden" });
    const jar = await signedInJar();
    const channel = await send(`/parties/user-sessions/${MARGARET}`, {
      headers: { Cookie: cookieHeader(jar), Upgrade: "websocket", Origin: ORIGIN },
    });
    expect(await answer(channel)).toEqual({ status: 403, error: "forbidden" });
  });

  it("csrf_failed 403: a POST without the token, and one from another site", async () => {
    const jar = await signedInJar();
    const without = await send("/auth/logout", {
      method: "POST",
      headers: { Cookie: cookieHeader(jar), ...JSON_ACCEPT },
    });
    expect(await answer(without)).toEqual({ status: 403, error: "csrf_failed" });
    const { token } = await withCsrf(jar);
    const crossSite = await send("/account/sessions/revoke-others", {
      method: "POST",
      headers: {
        Cookie: cookieHeader(jar),
        "X-CSRF-Token": token,
        Origin: "https://evil.example",
        "Sec-Fetch-Site": "cross-site",
        ...JSON_ACCEPT,
      },
    });
    expect(await answer(crossSite)).toEqual({ status: 403, error: "csrf_failed" });
  });

  it("logout_confirm_required 403: GET /auth/logout that is not the person's own navigation", async () => {
    const jar = await signedInJar();
    const res = await send("/auth/logout", {
      headers: { Cookie: cookieHeader(jar), "Sec-Fetch-Site": "cross-site", ...JSON_ACCEPT },
    });
    expect(await answer(res)).toEqual({ status: 403, error: "logout_confirm_required" });
  });

  it("organization_not_allowed 403: a sign-in into an organization that is not the person's", async () => {
    const { jar, authorize } = await startLogin(`organization_id=${ACME}`);
    const code = ((await (await providerCode(authorize, MARGARET)).json()) as { code: string }).code;
    const res = await send(`/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar), ...JSON_ACCEPT },
    });
    expect(await answer(res)).toEqual({ status: 403, error: "organization_not_allowed" });
  });

  it("origin_not_allowed 403: a WebSocket to the live channel from another origin", async () => {
    const jar = await signedInJar();
    const me = (await (await send("/api/me", { headers: { Cookie: cookieHeader(jar), ...JSON_ACCEPT } })).json()) as {
      user: { id: string };
    };
    const res = await send(`/parties/user-sessions/${me.user.id}`, {
      headers: { Cookie: cookieHeader(jar), Upgrade: "websocket", Origin: "https://evil.example" },
    });
    expect(await answer(res)).toEqual({ status: 403, error: "origin_not_allowed" });
  });

  it("session_not_found 404: revoking a session that is not a live one (account and admin)", async () => {
    const { jar, token } = await withCsrf(await signedInJar());
    const account = await send(`/account/sessions/${UNKNOWN_SESSION}/revoke`, {
      method: "POST",
      headers: { Cookie: cookieHeader(jar), "X-CSRF-Token": token, Origin: ORIGIN, ...JSON_ACCEPT },
    });
    expect(await answer(account)).toEqual({ status: 404, error: "session_not_found" });
    const admin = await send(`/admin/sessions/${UNKNOWN_SESSION}`, { method: "DELETE", headers: ADMIN });
    expect(await answer(admin)).toEqual({ status: 404, error: "session_not_found" });
  });

  it("not_found 404: no such route, and /admin/* without ADMIN_API_TOKEN", async () => {
    expect(await answer(await send("/no/such/route", { headers: JSON_ACCEPT }))).toEqual({
      status: 404,
      error: "not_found",
    });
    const { ADMIN_API_TOKEN: _none, ...withoutAdmin } = live;
    const res = await send(`/admin/users/${MARGARET}/sessions`, { headers: ADMIN }, withoutAdmin as WorkerEnv);
    expect(await answer(res)).toEqual({ status: 404, error: "not_found" });
  });

  it("upgrade_required 426: the live channel without a WebSocket upgrade", async () => {
    const jar = await signedInJar();
    const res = await send(`/parties/user-sessions/${MARGARET}`, { headers: { Cookie: cookieHeader(jar) } });
    expect(await answer(res)).toEqual({ status: 426, error: "upgrade_required" });
  });

  it("rate_limited 429: over a route's limit, with Retry-After", async () => {
    // The login limit is 20 per fixed 60 s window. Should the window roll over mid-way (the
    // remaining count goes back up), counting starts again in the new window: no sleeping.
    const ip = "203.0.113.99";
    let admitted = 0;
    let last: Response | undefined;
    let previous = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 60 && last?.status !== 429; i++) {
      last = await send("/auth/login", { headers: { "CF-Connecting-IP": ip, ...JSON_ACCEPT } });
      const remaining = Number(/r=(\d+)/.exec(last.headers.get("RateLimit") ?? "")?.[1]);
      if (remaining > previous) admitted = 0;
      previous = remaining;
      if (last.status === 302) admitted++;
    }
    expect(admitted).toBe(20);
    expect(Number(last!.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await answer(last!)).toEqual({ status: 429, error: "rate_limited" });
  });

  it("provider_unavailable 502: the identity provider fails at the callback", async () => {
    const { jar, authorize } = await startLogin();
    const code = ((await (await providerCode(authorize, MARGARET)).json()) as { code: string }).code;
    await fetch(`${idp.url}/__local/faults`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ endpoint: "authenticate", status: 500, count: 10 }),
    });
    const res = await send(`/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar), ...JSON_ACCEPT },
    });
    expect(await answer(res)).toEqual({ status: 502, error: "provider_unavailable" });
  });

  it("session_store_unavailable 503: the session store fails (never 'signed out')", async () => {
    const jar = await signedInJar();
    const down: WorkerEnv = { ...live, SESSIONS: brokenKV() };
    const res = await send("/api/me", { headers: { Cookie: cookieHeader(jar), ...JSON_ACCEPT } }, down);
    expect(await answer(res)).toEqual({ status: 503, error: "session_store_unavailable" });
  });

  it("invalid_cursor 400: an activity page or admin timeline with a cursor it did not issue", async () => {
    const jar = await signedInJar();
    const account = await send("/account/activity?cursor=nope", {
      headers: { Cookie: cookieHeader(jar), ...JSON_ACCEPT },
    });
    expect(await answer(account)).toEqual({ status: 400, error: "invalid_cursor" });
    const admin = await send(`/admin/users/${MARGARET}/timeline?cursor=c!`, { headers: ADMIN });
    expect(await answer(admin)).toEqual({ status: 400, error: "invalid_cursor" });
  });

  it("invalid_limit 400: an admin timeline page size outside 1-100", async () => {
    for (const limit of ["0", "101", "2.5", "ten"]) {
      const res = await send(`/admin/users/${MARGARET}/timeline?limit=${limit}`, { headers: ADMIN });
      expect(await answer(res)).toEqual({ status: 400, error: "invalid_limit" });
    }
  });

  it("invalid_organization_id 400: an organization control with a malformed id", async () => {
    const res = await send("/admin/organizations/not%20an%20org/kill-switch", { method: "POST", headers: ADMIN });
    expect(await answer(res)).toEqual({ status: 400, error: "invalid_organization_id" });
  });

  it("invalid_receipt_id 400: a receipt id that is not rcpt.u.… or rcpt.o.…", async () => {
    const res = await send("/admin/receipts/receipt-1", { headers: ADMIN });
    expect(await answer(res)).toEqual({ status: 400, error: "invalid_receipt_id" });
  });

  it("invalid_policy 400: a session policy that is not { maxSessions, onLimit }", async () => {
    for (const body of ["{", '{"maxSessions":0}', '{"maxSessions":5,"onLimit":"ask"}', "[1]", "null"]) {
      const res = await send(`/admin/organizations/${GLOBEX}/policy`, {
        method: "POST",
        headers: { ...ADMIN, "Content-Type": "application/json" },
        body,
      });
      expect(await answer(res), body).toEqual({ status: 400, error: "invalid_policy" });
    }
  });

  it("payload_too_large 413: a session policy body over 4 KB", async () => {
    const res = await send(`/admin/organizations/${GLOBEX}/policy`, {
      method: "POST",
      headers: { ...ADMIN, "Content-Type": "application/json" },
      body: JSON.stringify({ maxSessions: 3, pad: "x".repeat(5000) }),
    });
    expect(await answer(res)).toEqual({ status: 413, error: "payload_too_large" });
  });

  it("receipt_not_found 404: a well-formed receipt id nobody issued", async () => {
    const res = await send(`/admin/receipts/rcpt.u.${MARGARET}.999999`, { headers: ADMIN });
    expect(await answer(res)).toEqual({ status: 404, error: "receipt_not_found" });
  });

  it("session_limit_reached 403: a sign-in past the organization's cap with refuse-new", async () => {
    const post = (path: string, body?: unknown) =>
      send(path, {
        method: "POST",
        headers: { ...ADMIN, "Content-Type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    await post(`/admin/users/${GRACE}/sessions/revoke`);
    expect(
      (await post(`/admin/organizations/${GLOBEX}/policy`, { maxSessions: 1, onLimit: "refuse-new" })).status,
    ).toBe(200);
    try {
      const signIn = async () => {
        const { jar, authorize } = await startLogin(`organization_id=${GLOBEX}`);
        const code = ((await (await providerCode(authorize, GRACE, GLOBEX)).json()) as { code: string }).code;
        return send(`/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
          headers: { Cookie: cookieHeader(jar), ...JSON_ACCEPT },
        });
      };
      const first = await signIn();
      expect(first.status, await first.clone().text()).toBe(302);
      const refused = await signIn();
      expect(refused.headers.getSetCookie().some((c) => c.includes("gh_session="))).toBe(false);
      expect(await answer(refused)).toEqual({ status: 403, error: "session_limit_reached" });
    } finally {
      await post(`/admin/organizations/${GLOBEX}/policy/clear`);
      await post(`/admin/users/${GRACE}/sessions/revoke`);
    }
  });

  it("device_binding_required 403: an admin's browser that has not bound a device key, where Acme requires it for admins", async () => {
    // A deployment with binding on and a policy naming Acme's admins (the deployed one has it off).
    // The auth routes over the same bindings and local provider (one createAuthWorker per script).
    const binding = Application.create(live, {
      providers: [
        new AuthServiceProvider({
          session: {
            userSessions: live.USER_SESSIONS,
            deviceBinding: "opportunistic",
            organizationPolicies: { [ACME]: { deviceBindingRoles: ["admin"] } },
          },
        }),
      ],
    });
    const to = (path: string, headers: Record<string, string> = {}) =>
      binding.fetch(new Request(new URL(path, ORIGIN), { redirect: "manual", headers }));
    const start = await to(`/auth/login?organization_id=${ACME}`);
    const jar = cookiesFrom(start);
    const authorize = new URL(start.headers.get("Location")!);
    const code = (
      (await (await providerCode(authorize, "user_01ADALOVELACE0000000000000", ACME)).json()) as { code: string }
    ).code;
    const signedIn = await to(`/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      Cookie: cookieHeader(jar),
    });
    expect(signedIn.status, await signedIn.clone().text()).toBe(302);
    expect(signedIn.headers.get("Location")).toMatch(/^\/auth\/device-binding\?return_to=/);
    cookiesFrom(signedIn, jar);
    const res = await to("/auth/device-binding", { Cookie: cookieHeader(jar), ...JSON_ACCEPT });
    expect(await answer(res)).toEqual({ status: 403, error: "device_binding_required" });
  });

  it("step_up_required 403: a sensitive action with an old sign-in, and a step-up the provider did not confirm", async () => {
    const ada = "user_01ADALOVELACE0000000000000";
    const { jar, authorize } = await startLogin(`organization_id=${ACME}`);
    const old = Math.floor(Date.now() / 1000) - 3600;
    const code = ((await (await providerCode(authorize, ada, ACME, old)).json()) as { code: string }).code;
    const signedIn = await send(`/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar) },
    });
    cookiesFrom(signedIn, jar);
    const { jar: withToken, token } = await withCsrf(jar);
    const action = await send(`/account/organizations/${ACME}/kill-switch`, {
      method: "POST",
      headers: { Cookie: cookieHeader(withToken), "X-CSRF-Token": token, Origin: ORIGIN, ...JSON_ACCEPT },
    });
    expect(await answer(action)).toEqual({ status: 403, error: "step_up_required" });
    const step = await send(`/auth/login?organization_id=${ACME}&max_age=300`, {
      headers: { Cookie: cookieHeader(jar) },
    });
    cookiesFrom(step, jar);
    const again = new URL(step.headers.get("Location")!);
    const staleCode = ((await (await providerCode(again, ada, ACME, old)).json()) as { code: string }).code;
    const refused = await send(`/auth/callback?code=${staleCode}&state=${again.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar), ...JSON_ACCEPT },
    });
    expect(await answer(refused)).toEqual({ status: 403, error: "step_up_required" });
  });

  it("impersonation_forbidden 403: an impersonated session signing out the person's other sessions", async () => {
    const ada = "user_01ADALOVELACE0000000000000";
    await fetch(`${idp.url}/__local/impersonations`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user_id: ada, impersonator_email: "support@acme.test" }),
    });
    const { jar, authorize } = await startLogin(`organization_id=${ACME}`);
    const code = ((await (await providerCode(authorize, ada, ACME)).json()) as { code: string }).code;
    cookiesFrom(
      await send(`/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
        headers: { Cookie: cookieHeader(jar) },
      }),
      jar,
    );
    const { jar: withToken, token } = await withCsrf(jar);
    const res = await send("/account/sessions/revoke-others", {
      method: "POST",
      headers: { Cookie: cookieHeader(withToken), "X-CSRF-Token": token, Origin: ORIGIN, ...JSON_ACCEPT },
    });
    expect(await answer(res)).toEqual({ status: 403, error: "impersonation_forbidden" });
  });

  it("not_configured 503: the organizations' controls without the ORGANIZATIONS binding", async () => {
    const { ORGANIZATIONS: _none, ...without } = live;
    const res = await send(`/admin/organizations/${GLOBEX}/kill-switch`, { headers: ADMIN }, without as WorkerEnv);
    expect(await answer(res)).toEqual({ status: 503, error: "not_configured" });
  });

  it("service_unavailable 503: the configuration is refused", async () => {
    const weak: WorkerEnv = { ...live, SESSION_SECRET: "changeme" };
    expect(await answer(await send("/api/me", { headers: JSON_ACCEPT }, weak))).toEqual({
      status: 503,
      error: "service_unavailable",
    });
  });
});

describe("README's webhook answers", () => {
  const post = async (body: string, headers: Record<string, string>, e: WorkerEnv = live) =>
    send(
      "/webhooks/identity",
      { method: "POST", body, headers: { "Content-Type": "application/json", ...headers } },
      e,
    );
  const event = JSON.stringify({ id: "event_table_1", event: "user.deleted", data: { id: MARGARET }, created_at: "" });

  it("invalid_signature 400: a signature that does not verify", async () => {
    const res = await post(event, { [WEBHOOK_SIGNATURE_HEADER]: `t=${Date.now()}, v1=${"0".repeat(64)}` });
    expect(await answer(res)).toEqual({ status: 400, error: "invalid_signature" });
  });

  it("stale_timestamp 400: a signature from more than five minutes ago", async () => {
    const at = Date.now() - 10 * 60_000;
    const signature = await signWebhook(event, live.IDENTITY_WEBHOOK_SECRET!, at);
    expect(await answer(await post(event, { [WEBHOOK_SIGNATURE_HEADER]: signature }))).toEqual({
      status: 400,
      error: "stale_timestamp",
    });
  });

  it("malformed_body 400: a signed body that is not an event", async () => {
    const body = "not json";
    const signature = await signWebhook(body, live.IDENTITY_WEBHOOK_SECRET!, Date.now());
    expect(await answer(await post(body, { [WEBHOOK_SIGNATURE_HEADER]: signature }))).toEqual({
      status: 400,
      error: "malformed_body",
    });
  });

  it("payload_too_large 413: a body over 256 KiB", async () => {
    const body = "x".repeat(256 * 1024 + 1);
    expect(await answer(await post(body, { [WEBHOOK_SIGNATURE_HEADER]: `t=${Date.now()}, v1=00` }))).toEqual({
      status: 413,
      error: "payload_too_large",
    });
  });

  it("not_configured 503: no IDENTITY_WEBHOOK_SECRET", async () => {
    const { IDENTITY_WEBHOOK_SECRET: _none, ...without } = live;
    const res = await post(event, { [WEBHOOK_SIGNATURE_HEADER]: `t=${Date.now()}, v1=00` }, without as WorkerEnv);
    expect(await answer(res)).toEqual({ status: 503, error: "not_configured" });
  });

  it("session_store_unavailable 503: a directory user's event while the email directory (KV) is down", async () => {
    const body = JSON.stringify({
      id: "event_table_dsync",
      event: "dsync.user.updated",
      data: {
        object: "directory_user",
        id: "directory_user_1",
        organization_id: "org_01ACME",
        email: "margaret@acme.test",
        state: "inactive",
      },
      created_at: new Date().toISOString(),
    });
    const signature = await signWebhook(body, live.IDENTITY_WEBHOOK_SECRET!, Date.now());
    const down: WorkerEnv = { ...live, SESSIONS: brokenKV() };
    expect(await answer(await post(body, { [WEBHOOK_SIGNATURE_HEADER]: signature }, down))).toEqual({
      status: 503,
      error: "session_store_unavailable",
    });
  });
});
