/**
 * `createAuthWorker` as a team deploys it (worker.ts): its own binding names (AUTH_KV, PEOPLE,
 * LIMITS), a cookie shared with subdomains, a route-limit table, a route group switched off and
 * hooks, signing in through the local identity provider with the real WorkOS SDK. Both revocation
 * modes: the issue-16 bug was that UserSessions read env.SESSIONS, so a host with another KV
 * binding name got 503 on logout and, in eventual mode, kept the logged-out session valid.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { createAuthWorker } from "gatehouse-workers/worker";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { cookieHeader, cookiesFrom } from "../auth/helpers";
import { codeFor } from "../local-idp/flow-code";
import { revokedMarkOwner } from "../support/kv-records";
import { seen } from "./hooks";
import worker from "./worker";

const ORIGIN = "https://auth.example.com";
const ADA = "user_01ADALOVELACE0000000000000";
const idp = inject("localIdp");

type Mode = "strict" | "eventual";
const envs = new Map<string, Cloudflare.Env>();
/** The worker's env with one variable changed; the same object per variant (the app is built once per env). */
function envFor(vars: Record<string, string> = {}): Cloudflare.Env {
  const key = JSON.stringify(vars);
  let e = envs.get(key);
  if (!e) {
    e = { ...env, ...vars };
    envs.set(key, e);
  }
  return e;
}

async function send(path: string, init: RequestInit = {}, e: Cloudflare.Env = envFor()): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${ORIGIN}${path}`, { redirect: "manual", ...init }), e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A whole sign-in: /auth/login, a code from the provider for `userId`, /auth/callback. */
let ips = 0;
async function signIn(e: Cloudflare.Env, userId = ADA, ip = `192.0.2.${++ips}`) {
  const start = await send("/auth/login?return_to=/api/me", { headers: { "CF-Connecting-IP": ip } }, e);
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get("Location")!);
  const code = await codeFor(idp.url, authorize, userId, env.AUTH_REDIRECT_URL);
  const callback = await send(
    `/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`,
    { headers: { Cookie: cookieHeader(cookiesFrom(start)), "CF-Connecting-IP": ip } },
    e,
  );
  expect(callback.status).toBe(302);
  const setCookie = callback.headers.getSetCookie().find((c) => c.startsWith("__Secure-team_session="));
  expect(setCookie).toBeDefined();
  const cookie = setCookie!.split(";")[0]!;
  const me = (await (await send("/api/me", { headers: { Cookie: cookie } }, e)).json()) as { sessionId: string };
  return { cookie, setCookie: setCookie!, sessionId: me.sessionId };
}

const ownNavigation = { "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "navigate" };

beforeEach(async () => {
  // Ada's object outlives a test: end her sessions so each test counts its own.
  await env.PEOPLE.get(env.PEOPLE.idFromName(ADA)).revokeAll();
  seen.length = 0;
  const res = await fetch(`${idp.url}/__local/reset`, { method: "POST" });
  expect(res.ok).toBe(true);
});

describe("createAuthWorker with a team's own binding names", () => {
  it("publishes no shared-signals documents unless ssf is configured (off by default)", async () => {
    for (const path of ["/.well-known/ssf-configuration", "/ssf/jwks.json"]) {
      expect((await send(path, { headers: { Accept: "application/json" } })).status).toBe(404);
    }
  });

  it("signs in through the local provider and keeps the session in AUTH_KV, under its cookie name and domain", async () => {
    const { setCookie, sessionId } = await signIn(envFor());
    expect(setCookie).toMatch(/; Domain=example\.com/i);
    expect(setCookie).toMatch(/; SameSite=Lax/);
    expect(setCookie).toMatch(/; Max-Age=2592000/); // absolute lifetime (default 30 days)
    expect(await env.AUTH_KV.get(`sess:${sessionId}`)).not.toBeNull();
    const record = JSON.parse((await env.AUTH_KV.get(`sess:${sessionId}`))!) as { idleExpiresAt: number };
    expect(record.idleExpiresAt - Date.now()).toBeLessThanOrEqual(3600_000); // idleTimeout: 3600
    expect(seen).toEqual([
      { hook: "onSignIn", event: { userId: ADA, sessionId, organizationId: "org_01ACME00000000000000000000" } },
    ]);
  });

  it.each(["strict", "eventual"] as Mode[])(
    "%s mode: logout answers 302, replaces the AUTH_KV record by a revoked mark, and the cookie is refused afterwards",
    async (mode) => {
      const e = envFor({ GATEHOUSE_REVOCATION: mode });
      const { cookie, sessionId } = await signIn(e);
      const out = await send("/auth/logout", { headers: { Cookie: cookie, ...ownNavigation } }, e);
      expect(out.status).toBe(302);
      expect(out.headers.getSetCookie().some((c) => /^__Secure-team_session=;.*Max-Age=0/.test(c))).toBe(true);
      expect(await revokedMarkOwner(env.AUTH_KV, sessionId)).toBe(ADA);
      const after = await send("/api/me", { headers: { Cookie: cookie, Accept: "application/json" } }, e);
      expect(after.status).toBe(401);
      expect(seen.map((s) => s.hook)).toEqual(["onSignIn", "onSignOut"]);
      expect(seen[1]!.event).toEqual({ userId: ADA, sessionId });
    },
  );

  it("strict mode refuses a logged-out session even where KV still has its record; eventual mode accepts it there", async () => {
    // Another location can serve a deleted KV record for up to ~60 s: put it back, as that location would read it.
    for (const mode of ["strict", "eventual"] as const) {
      const e = envFor({ GATEHOUSE_REVOCATION: mode });
      const { cookie, sessionId } = await signIn(e);
      const record = await env.AUTH_KV.get(`sess:${sessionId}`);
      expect(record).not.toBeNull();
      expect((await send("/auth/logout", { headers: { Cookie: cookie, ...ownNavigation } }, e)).status).toBe(302);
      await env.AUTH_KV.put(`sess:${sessionId}`, record!, { expirationTtl: 600 });
      const stale = await send("/api/me", { headers: { Cookie: cookie, Accept: "application/json" } }, e);
      expect(stale.status, mode).toBe(mode === "strict" ? 401 : 200);
      await env.AUTH_KV.delete(`sess:${sessionId}`);
    }
  });

  it("lists and revokes through PEOPLE, over its AuthService entrypoint, and tells onRevoke", async () => {
    const e = envFor({ GATEHOUSE_REVOCATION: "strict" });
    const a = await signIn(e);
    const b = await signIn(e);
    const page = await send("/account/sessions", { headers: { Cookie: a.cookie, Accept: "application/json" } }, e);
    const body = (await page.json()) as { sessions: { id: string }[] };
    expect(body.sessions.map((s) => s.id).sort()).toEqual([a.sessionId, b.sessionId].sort());
    const result = await exports.AuthService.revokeSession(b.sessionId);
    expect(result).toMatchObject({ revoked: 1 });
    expect((await send("/api/me", { headers: { Cookie: b.cookie, Accept: "application/json" } }, e)).status).toBe(401);
    expect((await send("/api/me", { headers: { Cookie: a.cookie, Accept: "application/json" } }, e)).status).toBe(200);
    expect(seen.at(-1)).toEqual({
      hook: "onRevoke",
      event: { userId: ADA, sessionId: b.sessionId, scope: "session", revoked: 1 },
    });
  });

  it("applies its route-limit table (login: 3 per day) on LIMITS", async () => {
    const ip = "198.51.100.77";
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await send("/auth/login", { headers: { "CF-Connecting-IP": ip } })).status);
    }
    expect(statuses).toEqual([302, 302, 302, 429]);
  });

  it("leaves out a route group switched off (admin), even with ADMIN_API_TOKEN set", async () => {
    const e = envFor({ ADMIN_API_TOKEN: "factory-admin-token-0123456789-abcdefghij" });
    const res = await send(
      `/admin/users/${ADA}/sessions`,
      { headers: { Authorization: "Bearer factory-admin-token-0123456789-abcdefghij", Accept: "application/json" } },
      e,
    );
    expect(res.status).toBe(404);
  });

  it("refuses a mistaken option when createAuthWorker runs, naming it", () => {
    expect(() => createAuthWorker({ bindings: { sessions: "not a name" } })).toThrow(/bindings\.sessions/);
    expect(() => createAuthWorker({ rateLimits: { signup: { limit: 1, window: 1 } } as never })).toThrow(
      /rateLimits\.signup is not a route family/,
    );
    expect(() => createAuthWorker({ rateLimits: { login: { limit: 0, window: 60 } } })).toThrow(/rateLimits\.login/);
    expect(() => createAuthWorker({ cookie: { sameSite: "None" as never } })).toThrow(/cookie\.sameSite/);
    expect(() => createAuthWorker({ revocation: "sometimes" as never })).toThrow(/revocation/);
    expect(() => createAuthWorker({ idleTimeout: 30 })).toThrow(/createAuthWorker: .*at least 60 seconds/);
    expect(() => createAuthWorker({ cookie: { name: "__Host-x" } })).toThrow(/createAuthWorker: cookie\.name/);
    expect(() => createAuthWorker({ cookie: { domain: ".example.com" } })).toThrow(/createAuthWorker: cookie\.domain/);
    expect(() => createAuthWorker({ cookie: { domain: "com" } })).toThrow(/createAuthWorker: cookie\.domain/);
    expect(() => createAuthWorker({ cookie: { name: "gh_csrf" } })).toThrow(/another Gatehouse cookie/);
    expect(() => createAuthWorker({ redirectUrl: "http://auth.example.com/auth/callback" })).toThrow(
      /createAuthWorker: redirectUrl is http: on a host that is not loopback/,
    );
    expect(() => createAuthWorker({ returnOrigins: ["https://app.example.com/path"] })).toThrow(
      /createAuthWorker: returnOrigins: .* is not a bare origin/,
    );
    expect(() => createAuthWorker({ bindings: { sessions: "AUTH_KV", userSessions: "AUTH_KV" } })).toThrow(
      /AUTH_KV for two roles/,
    );
    // Device binding's site: a bare https origin covering cookie.domain, and only with one.
    const site = (deviceBindingSite: string, domain?: string) => () =>
      createAuthWorker({
        deviceBinding: "opportunistic",
        deviceBindingSite,
        ...(domain ? { cookie: { domain } } : {}),
      });
    expect(site("https://example.com")).toThrow(/createAuthWorker: deviceBindingSite needs cookie\.domain/);
    expect(site("https://example.com/", "example.com")).toThrow(/createAuthWorker: deviceBindingSite must be a bare/);
    expect(site("https://example.net", "app.example.com")).toThrow(/does not cover cookie\.domain/);
    // Apps told of ended sessions: a name, a binding name of their own.
    expect(() => createAuthWorker({ apps: { Chat: { binding: "APP_CHAT" } } })).toThrow(
      /createAuthWorker: apps: "Chat" is not an app name/,
    );
    expect(() => createAuthWorker({ apps: { chat: { binding: "app chat" } } })).toThrow(
      /createAuthWorker: apps\.chat\.binding must be a binding name/,
    );
    expect(() => createAuthWorker({ apps: { chat: { binding: "APP" }, docs: { binding: "APP" } } })).toThrow(
      /createAuthWorker: apps: chat and docs both name the binding APP/,
    );
    expect(() => createAuthWorker({ apps: { chat: { binding: "SESSIONS" } } })).toThrow(
      /createAuthWorker: apps\.chat\.binding SESSIONS is already the binding of another role/,
    );
  });

  it("refuses a second auth worker in the same script (they would share the Durable Objects' options)", () => {
    expect(() => createAuthWorker({ cookie: { name: "other" } })).toThrow(/called twice in one script/);
  });
});

describe("createAuthWorker's start-up check", () => {
  it("answers 503 while the session KV namespace is not bound under its configured name, and logs that name", async () => {
    const { AUTH_KV: _dropped, ...rest } = env;
    const logs: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logs.push(args.join(" "));
    try {
      const res = await send("/api/me", { headers: { Accept: "application/json" } }, rest as Cloudflare.Env);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: "service_unavailable" });
    } finally {
      console.error = original;
    }
    expect(logs.some((line) => line.includes("AUTH_KV is not bound"))).toBe(true);
  });

  it("answers 503 while a binding the options named is not bound (PEOPLE: strict revocation cannot silently turn eventual)", async () => {
    const { PEOPLE: _dropped, ...rest } = env;
    const logs: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logs.push(args.join(" "));
    try {
      const res = await send("/health", { headers: { Accept: "application/json" } }, rest as Cloudflare.Env);
      expect(res.status).toBe(503);
    } finally {
      console.error = original;
    }
    expect(logs.some((line) => line.includes("PEOPLE is not bound"))).toBe(true);
  });
});
