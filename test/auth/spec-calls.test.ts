/**
 * Issue 26 item 4: the spec's own calls, with exactly the spec's arguments, do what the spec says.
 * Each test is named after its row of ../shared/SPEC.md. The first one used to throw
 * `config_missing` (the two-argument login handler had no secret to sign its flow with).
 */
import { env } from "cloudflare:workers";
import {
  createLoginHandler,
  handleCallback,
  handleLogout,
  type IdentityUser,
  SessionManager,
} from "gatehouse-workers/auth";
import { FakeIdentityClient } from "gatehouse-workers/testing";
import { describe, expect, it } from "vitest";
import { ada, cookieHeader, cookiesFrom, ORIGIN, REDIRECT_URL } from "./helpers";

/** A browser's sign-in through the spec's two handlers: start, the provider's code, the callback. */
async function signInThroughSpecHandlers(
  user: IdentityUser,
  query = "",
  options: { organizationId?: string; authenticatedAt?: number; tamper?: (value: string) => string } = {},
) {
  const identityClient = new FakeIdentityClient({ users: [user], synthetic: false });
  const sessionManager = new SessionManager(env.SESSIONS, env.SESSION_SECRET);
  const login = createLoginHandler(identityClient, REDIRECT_URL);
  const start = await login(new Request(`${ORIGIN}/auth/login${query}`));
  const jar = cookiesFrom(start);
  const authorize = new URL(start.headers.get("Location")!);
  if (options.tamper) for (const name of Object.keys(jar)) jar[name] = options.tamper(jar[name]!);
  const code = identityClient.issueCode(user.id, {
    codeChallenge: authorize.searchParams.get("code_challenge")!,
    ...(options.organizationId ? { organizationId: options.organizationId } : {}),
    ...(options.authenticatedAt !== undefined ? { authenticatedAt: options.authenticatedAt } : {}),
  });
  const callback = await handleCallback(
    new Request(`${ORIGIN}/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar), Accept: "application/json" },
    }),
    sessionManager,
    identityClient,
    REDIRECT_URL,
  );
  return { start, authorize, callback, sessionManager, identityClient };
}

describe("SPEC: createLoginHandler(identityClient, redirectUrl): (request) => Promise<Response>", () => {
  it("returns a handler that redirects to the provider's authorization URL (two arguments, no secret)", async () => {
    const { start, authorize, callback, sessionManager } = await signInThroughSpecHandlers(ada, "?return_to=/reports");
    expect(start.status).toBe(302);
    expect(authorize.searchParams.get("redirect_uri")).toBe(REDIRECT_URL);
    expect(authorize.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    // The flow is bound to this browser: a host-only (no Domain), HttpOnly, __Host- cookie.
    const flowCookie = start.headers.get("Set-Cookie")!;
    expect(flowCookie).toMatch(/^__Host-gh_login_/);
    expect(flowCookie).toContain("HttpOnly");
    expect(flowCookie).not.toMatch(/Domain=/i);
    // The callback (the spec's four arguments) finishes it: a session for Ada, back to return_to.
    expect(callback.status).toBe(302);
    expect(callback.headers.get("Location")).toBe("/reports");
    const session = cookiesFrom(callback);
    const user = await sessionManager.resolveUser(new Request(ORIGIN, { headers: { Cookie: cookieHeader(session) } }));
    expect(user?.id).toBe(ada.id);
  });

  it("without a signed flow: return_to is checked at the callback, the organization against the memberships, a step-up never counts", async () => {
    // A return_to of another site (planted by editing the unsigned cookie) is not followed.
    const edited = await signInThroughSpecHandlers(ada, "?return_to=/ok", {
      tamper: (value) => {
        const flow = JSON.parse(atob(value.replaceAll("-", "+").replaceAll("_", "/")));
        flow.returnTo = "https://evil.example/";
        return btoa(JSON.stringify(flow)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
      },
    });
    expect(edited.callback.status).toBe(302);
    expect(edited.callback.headers.get("Location")).toBe("/");
    // An organization the person is not a member of: refused when the session is created.
    const outsider = await signInThroughSpecHandlers(ada, "?organization_id=org_01OTHER", {
      organizationId: "org_01OTHER",
    });
    expect(outsider.callback.status).toBe(403);
    expect(await outsider.callback.json()).toMatchObject({ error: "organization_not_allowed" });
    // A step-up asked through an unsigned flow is a plain sign-in: an old provider sign-in is
    // neither refused nor made recent (a signed flow refuses it: test/security/sensitive-actions).
    const hourAgo = Date.now() - 3_600_000;
    const stepUp = await signInThroughSpecHandlers(ada, "?max_age=300", { authenticatedAt: hourAgo });
    expect(stepUp.callback.status).toBe(302);
    const resolved = await stepUp.sessionManager.resolveSession(
      new Request(ORIGIN, { headers: { Cookie: cookieHeader(cookiesFrom(stepUp.callback)) } }),
    );
    expect(resolved?.authenticatedAt).toBe(hourAgo);
  });

  it("the deployed worker's callback (requireSignedFlow) refuses an unsigned flow", async () => {
    const identityClient = new FakeIdentityClient({ users: [ada], synthetic: false });
    const start = await createLoginHandler(identityClient, REDIRECT_URL)(new Request(`${ORIGIN}/auth/login`));
    const authorize = new URL(start.headers.get("Location")!);
    const code = identityClient.issueCode(ada.id, { codeChallenge: authorize.searchParams.get("code_challenge")! });
    const res = await handleCallback(
      new Request(`${ORIGIN}/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
        headers: { Cookie: cookieHeader(cookiesFrom(start)), Accept: "application/json" },
      }),
      new SessionManager(env.SESSIONS, env.SESSION_SECRET),
      identityClient,
      REDIRECT_URL,
      { requireSignedFlow: true },
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_state" });
  });
});

describe("SPEC: handleLogout(request, sessionManager, redirectTo?): Promise<Response>", () => {
  it("destroys the session and redirects; redirectTo defaults to /auth/login", async () => {
    const { callback, sessionManager } = await signInThroughSpecHandlers(ada);
    const cookie = cookieHeader(cookiesFrom(callback));
    const res = await handleLogout(
      new Request(`${ORIGIN}/auth/logout`, {
        method: "POST",
        headers: { Cookie: cookie, Origin: ORIGIN, "Sec-Fetch-Site": "same-origin" },
      }),
      sessionManager,
    );
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/auth/login");
    expect(await sessionManager.resolveUser(new Request(ORIGIN, { headers: { Cookie: cookie } }))).toBeNull();
  });
});

describe("SPEC: SessionManager constructor (kv: KV namespace, secret: string)", () => {
  it("createSession(user, organizationId?), resolveUser(request), destroySession(sessionId) as the spec says", async () => {
    const sessions = new SessionManager(env.SESSIONS, env.SESSION_SECRET);
    const { sessionId, response } = await sessions.createSession(ada, "org_acme");
    const cookie = response.headers.get("Set-Cookie")!.split(";")[0]!;
    const user = await sessions.resolveUser(new Request(ORIGIN, { headers: { Cookie: cookie } }));
    expect(user).toMatchObject({ id: ada.id, organizationId: "org_acme" });
    const cleared = await sessions.destroySession(sessionId);
    expect(cleared.headers.get("Set-Cookie")).toMatch(/Max-Age=0/);
    expect(await sessions.resolveUser(new Request(ORIGIN, { headers: { Cookie: cookie } }))).toBeNull();
  });
});
