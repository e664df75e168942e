/**
 * Issue 14 finding 4: every answer of the auth worker carries nosniff, a Referrer-Policy, framing
 * refused, a CSP on HTML and HSTS over https, and no body shows a stack trace or a file path.
 * The walk covers every route of workers/auth (GET and POST, signed in and not, good and bad
 * input, browser and API clients), the rate limiter's 429, the provider being down, and the
 * worker misconfigured, over https and over http.
 */

import { env } from "cloudflare:workers";
import { type IdentityUser, SessionManager } from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from "../../scripts/local-idp/webhook-signature";
import { authApplication } from "../../workers/auth/app";
import { cookieHeader, cookiesFrom } from "../auth/helpers";
import { codeFor } from "../local-idp/flow-code";
import { API, BROWSER, HeaderWalk } from "./helpers/headers";
import { freshIp, idp, live, type WorkerEnv } from "./helpers/world";
import worker from "./worker";

/** The local identity provider's Ada (scripts/local-idp/demo-data.ts). */
const ADA = "user_01ADALOVELACE0000000000000";

type WorkerRequest = Parameters<typeof worker.fetch>[0];

/** The provider unreachable (nothing listens on port 1). */
const providerDown: WorkerEnv = { ...live, IDENTITY_API_PORT: "1" };
/** Webhooks without their secret: the route answers 503. */
const noWebhookSecret: WorkerEnv = { ...live, IDENTITY_WEBHOOK_SECRET: undefined as unknown as string };
/** A worker that cannot run: a weak session secret, and no session store at all. */
const weakSecret: WorkerEnv = { ...live, SESSION_SECRET: "short" };
const noStore: WorkerEnv = { ...live, SESSIONS: undefined as unknown as KVNamespace };

let userCounter = 0;
function person(): IdentityUser {
  const id = `user_headers_${Date.now().toString(36)}_${++userCounter}`;
  return {
    id,
    email: `${id}@acme.test`,
    firstName: "Head",
    lastName: "Ers",
    memberships: [{ organizationId: "org_acme", organizationSlug: "acme", role: "admin" }],
  };
}

/** One walk over one origin through the auth worker's fetch handler, each probe from a fresh address. */
class Walk extends HeaderWalk<WorkerEnv> {
  constructor(origin: string) {
    super(
      origin,
      live,
      (request, e, ctx) => worker.fetch(request as WorkerRequest, e, ctx),
      () => ({ "CF-Connecting-IP": freshIp() }),
    );
  }

  /** A session of `user` made by the worker's own SessionManager, as its Cookie header value. */
  async session(user: IdentityUser): Promise<{ cookie: string; sessionId: string }> {
    const manager = authApplication(live).container.resolve(SessionManager);
    const { sessionId, response } = await manager.createSession(user, "org_acme");
    return { cookie: cookieHeader(cookiesFrom(response)), sessionId };
  }
}

async function walkAuthWorker(walk: Walk): Promise<void> {
  const origin = walk.origin;
  const nav = { ...BROWSER };
  const otherSite = { ...BROWSER, "Sec-Fetch-Site": "cross-site" };

  // Public pages and unknown paths.
  for (const [kind, headers] of [
    ["browser", nav],
    ["api", API],
  ] as const) {
    await walk.send(`home ${kind}`, "/", { headers });
    await walk.send(`health ${kind}`, "/health", { headers });
    await walk.send(`POST health ${kind}`, "/health", { method: "POST", headers });
    await walk.send(`unknown ${kind}`, "/no/such/page", { headers });
    await walk.send(`POST unknown ${kind}`, "/no/such/page", { method: "POST", headers, body: "x" });
    await walk.send(`encoded junk ${kind}`, "/%2e%2e/%ff%00/etc/passwd", { headers });
    await walk.send(`long path ${kind}`, `/${"a".repeat(4000)}`, { headers });
    await walk.send(`api/me signed out ${kind}`, "/api/me", { headers });
    await walk.send(`account signed out ${kind}`, "/account/sessions", { headers });
    await walk.send(`POST revoke-others signed out ${kind}`, "/account/sessions/revoke-others", {
      method: "POST",
      headers,
    });
  }

  // Login: good and bad input, and a whole sign-in through the local provider.
  await walk.send("login", "/auth/login", { headers: nav });
  await walk.send("login open redirect", "/auth/login?return_to=//evil.example/x", { headers: nav });
  await walk.send("login js return", "/auth/login?return_to=javascript:alert(1)&organization_id=%3Cscript%3E", {
    headers: API,
  });
  await walk.send("POST login", "/auth/login", { method: "POST", headers: nav });
  const start = await walk.send(
    "login for callback",
    `/auth/login?return_to=${encodeURIComponent("/account/sessions")}`,
    {
      headers: nav,
    },
  );
  const jar = cookiesFrom(start);
  const authorize = new URL(start.headers.get("Location")!);
  const issued = { code: await codeFor(idp.url, authorize, ADA, env.AUTH_REDIRECT_URL) };
  const state = authorize.searchParams.get("state")!;
  const callback = await walk.send("callback good", `/auth/callback?code=${issued.code}&state=${state}`, {
    headers: { ...nav, Cookie: cookieHeader(jar) },
  });
  expect(callback.status, "the sign-in through the provider completes").toBe(302);
  await walk.send("callback replayed", `/auth/callback?code=${issued.code}&state=${state}`, {
    headers: { ...nav, Cookie: cookieHeader(jar) },
  });
  await walk.send("callback no params", "/auth/callback", { headers: nav });
  await walk.send("callback no params api", "/auth/callback", { headers: API });
  await walk.send("callback forged state", "/auth/callback?code=abc&state=forged", { headers: nav });
  await walk.send(
    "callback provider error",
    `/auth/callback?error=access_denied&error_description=${encodeURIComponent("<script>alert(1)</script>")}`,
    { headers: nav },
  );
  await walk.send("POST callback", "/auth/callback", { method: "POST", headers: API });
  // The provider down while a real flow calls back.
  const downStart = await walk.send("login provider down", "/auth/login", { headers: nav }, providerDown);
  const downAuthorize = new URL(downStart.headers.get("Location")!);
  await walk.send(
    "callback provider down",
    `/auth/callback?code=whatever&state=${downAuthorize.searchParams.get("state")}`,
    { headers: { ...nav, Cookie: cookieHeader(cookiesFrom(downStart)) } },
    providerDown,
  );
  await walk.send(
    "callback provider down api",
    `/auth/callback?code=whatever&state=${downAuthorize.searchParams.get("state")}`,
    { headers: { ...API, Cookie: cookieHeader(cookiesFrom(downStart)) } },
    providerDown,
  );

  // Signed in: pages, JSON, the account forms with and without CSRF, bad ids.
  const user = person();
  const me = await walk.session(user);
  const other = await walk.session(user);
  const signedIn = { ...nav, Cookie: me.cookie };
  const signedInApi = { ...API, Cookie: me.cookie };
  await walk.send("home signed in", "/", { headers: signedIn });
  await walk.send("api/me signed in", "/api/me", { headers: signedInApi });
  await walk.send("api/me signed in browser", "/api/me", { headers: signedIn });
  await walk.send("api/me forged cookie", "/api/me", { headers: { ...API, Cookie: `${me.cookie}x` } });
  const account = await walk.send("account page", "/account/sessions?signed_out=2", { headers: signedIn });
  expect(account.status).toBe(200);
  const csrf = cookiesFrom(account);
  const withCsrf = (headers: Record<string, string>) => ({
    ...headers,
    Cookie: `${me.cookie}; ${cookieHeader(csrf)}`,
    "X-CSRF-Token": Object.values(csrf)[0]!,
    Origin: origin,
  });
  await walk.send("account json", "/account/sessions", { headers: signedInApi });
  await walk.send("revoke-others no csrf", "/account/sessions/revoke-others", { method: "POST", headers: signedIn });
  await walk.send("revoke-others cross-site", "/account/sessions/revoke-others", {
    method: "POST",
    headers: { ...withCsrf(otherSite), Origin: "https://evil.example" },
  });
  await walk.send("revoke bad id", "/account/sessions/not-an-id/revoke", { method: "POST", headers: withCsrf(nav) });
  await walk.send("revoke unknown id", `/account/sessions/${"ab".repeat(32)}/revoke`, {
    method: "POST",
    headers: withCsrf(API),
  });
  await walk.send("revoke other session", `/account/sessions/${other.sessionId}/revoke`, {
    method: "POST",
    headers: withCsrf(nav),
  });
  await walk.send("revoke-others", "/account/sessions/revoke-others", { method: "POST", headers: withCsrf(API) });
  await walk.send("GET revoke", `/account/sessions/${me.sessionId}/revoke`, { headers: signedIn });

  // The live channel: wrong party, bad id, no upgrade, foreign origin, no cookie, another user, and a real upgrade.
  const liveUser = person();
  const liveSession = await walk.session(liveUser);
  const ws = { Upgrade: "websocket", Origin: origin };
  await walk.send("party unknown", "/parties/rate-limiter/x", { headers: { ...ws } });
  await walk.send("party bad id", "/parties/user-sessions/%3Cbad%3E", { headers: { ...ws } });
  await walk.send("party no upgrade", `/parties/user-sessions/${liveUser.id}`, { headers: signedIn });
  await walk.send("party foreign origin", `/parties/user-sessions/${liveUser.id}`, {
    headers: { ...ws, Origin: "https://evil.example", Cookie: liveSession.cookie },
  });
  await walk.send("party no cookie", `/parties/user-sessions/${liveUser.id}`, { headers: { ...ws } });
  await walk.send("party another user", `/parties/user-sessions/${liveUser.id}`, {
    headers: { ...ws, Cookie: me.cookie },
  });
  await walk.send("party injected props", `/parties/user-sessions/${liveUser.id}`, {
    headers: { ...ws, Cookie: liveSession.cookie, "x-partykit-props": "{not json", "x-partykit-room": "other" },
  });
  const upgraded = await walk.send("party upgrade", `/parties/user-sessions/${liveUser.id}`, {
    headers: { ...ws, Cookie: liveSession.cookie },
  });
  // Over http: the page's origin is not the configured (https) one, so the channel refuses it (403).
  expect(origin.startsWith("https:") ? [101] : [403]).toContain(upgraded.status);

  // Admin: no token, wrong token, good token with good and bad input.
  const admin = { ...API, Authorization: `Bearer ${env.ADMIN_API_TOKEN}` };
  await walk.send("admin no token", `/admin/users/${user.id}/sessions`, { headers: API });
  await walk.send("admin no token browser", `/admin/users/${user.id}/sessions`, { headers: nav });
  await walk.send("admin wrong token", `/admin/users/${user.id}/sessions`, {
    headers: { ...API, Authorization: "Bearer wrong" },
  });
  await walk.send("admin list", `/admin/users/${user.id}/sessions`, { headers: admin });
  await walk.send("admin list bad id", "/admin/users/%3Cbad%3E/sessions", { headers: admin });
  await walk.send("admin delete bad id", "/admin/sessions/nope", { method: "DELETE", headers: admin });
  await walk.send("admin delete unknown", `/admin/sessions/${"cd".repeat(32)}`, { method: "DELETE", headers: admin });
  await walk.send("admin revoke user", `/admin/users/${person().id}/sessions/revoke`, {
    method: "POST",
    headers: admin,
  });
  await walk.send("admin unknown route", "/admin/whatever", { method: "PUT", headers: admin });

  // Provider webhooks: unsigned, badly signed, malformed, too large, a valid ignored event, unconfigured.
  const hook = "/webhooks/identity";
  const json = { "Content-Type": "application/json" };
  const event = JSON.stringify({
    id: `event_headers_${Date.now()}`,
    event: "headers.walk",
    data: {},
    created_at: new Date().toISOString(),
  });
  await walk.send("webhook GET", hook, { headers: API });
  await walk.send("webhook unsigned", hook, { method: "POST", headers: json, body: event });
  await walk.send("webhook bad signature", hook, {
    method: "POST",
    headers: { ...json, [WEBHOOK_SIGNATURE_HEADER]: "t=1, v1=00" },
    body: event,
  });
  await walk.send("webhook malformed", hook, {
    method: "POST",
    headers: { ...json, [WEBHOOK_SIGNATURE_HEADER]: await signWebhook("{", env.IDENTITY_WEBHOOK_SECRET, Date.now()) },
    body: "{",
  });
  await walk.send("webhook too large", hook, {
    method: "POST",
    headers: { ...json, [WEBHOOK_SIGNATURE_HEADER]: "t=1, v1=00" },
    body: "x".repeat(2_000_000),
  });
  await walk.send("webhook valid", hook, {
    method: "POST",
    headers: { ...json, [WEBHOOK_SIGNATURE_HEADER]: await signWebhook(event, env.IDENTITY_WEBHOOK_SECRET, Date.now()) },
    body: event,
  });
  await walk.send("webhook unconfigured", hook, { method: "POST", headers: json, body: event }, noWebhookSecret);

  // Signing out: revoking this very session, then logout as the person's own navigation, a
  // cross-site one, an API client, a POST with and without its CSRF token.
  await walk.send("revoke own session", `/account/sessions/${me.sessionId}/revoke`, {
    method: "POST",
    headers: withCsrf(API),
  });
  await walk.send("account after own revoke", "/account/sessions", { headers: signedIn });
  const last = await walk.session(user);
  const lastCsrf = cookiesFrom(
    await walk.send("account page for logout", "/account/sessions", { headers: { ...nav, Cookie: last.cookie } }),
  );
  const lastWithCsrf = (headers: Record<string, string>) => ({
    ...headers,
    Cookie: `${last.cookie}; ${cookieHeader(lastCsrf)}`,
    "X-CSRF-Token": Object.values(lastCsrf)[0]!,
    Origin: origin,
  });
  await walk.send("logout cross-site", "/auth/logout", { headers: { ...otherSite, Cookie: last.cookie } });
  await walk.send("logout api", "/auth/logout", { headers: { ...API, Cookie: last.cookie } });
  await walk.send("POST logout no csrf", "/auth/logout", { method: "POST", headers: { ...nav, Cookie: last.cookie } });
  await walk.send("POST logout", "/auth/logout", { method: "POST", headers: lastWithCsrf(nav) });
  await walk.send("logout", "/auth/logout", { headers: { ...nav, "Sec-Fetch-Site": "none", Cookie: last.cookie } });
  await walk.send("logout signed out", "/auth/logout", { headers: nav });

  // The login limit: one address past AUTH_RATE_LIMITS.login answers 429, as a page and as JSON.
  const ip = freshIp();
  for (let i = 0; i < 20; i++) {
    await walk.send("login limit", "/auth/login", { headers: { ...nav, "CF-Connecting-IP": ip } });
  }
  const limited = await walk.send("login limited browser", "/auth/login", {
    headers: { ...nav, "CF-Connecting-IP": ip },
  });
  expect(limited.status).toBe(429);
  await walk.send("login limited api", "/auth/login", { headers: { ...API, "CF-Connecting-IP": ip } });

  // A worker that cannot run (last: a configuration check may remember its verdict per isolate).
  for (const [name, e] of [
    ["weak secret", weakSecret],
    ["no session store", noStore],
  ] as const) {
    await walk.send(`${name} home`, "/", { headers: nav }, e);
    await walk.send(`${name} api/me`, "/api/me", { headers: { ...API, Cookie: me.cookie } }, e);
    await walk.send(`${name} login`, "/auth/login", { headers: nav }, e);
    await walk.send(`${name} account`, "/account/sessions", { headers: signedIn }, e);
  }
}

describe("security headers on every answer of the auth worker", () => {
  for (const origin of ["https://auth.example.com", "http://auth.example.com"]) {
    it(`walks every route over ${new URL(origin).protocol}`, async () => {
      const walk = new Walk(origin);
      await walkAuthWorker(walk);
      expect(walk.count).toBeGreaterThan(100);
      // The walk met the answers the finding names: pages, redirects, refusals, 404s, 429s, 5xx.
      for (const status of [200, 302, 400, 401, 403, 404, 429])
        expect(walk.statuses, `status ${status}`).toContain(status);
      expect([...walk.statuses].some((s) => s >= 500)).toBe(true);
      expect(walk.problems).toEqual([]);
    });
  }
});
