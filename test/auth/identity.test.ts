/**
 * The real `@workos-inc/node` SDK inside workerd, through DefaultIdentityClient,
 * against the local identity provider (scripts/local-idp) started by globalSetup.
 */
import { env } from "cloudflare:workers";
import { Application } from "gatehouse-workers";
import { AuthServiceProvider, DefaultIdentityClient, SessionManager } from "gatehouse-workers/auth";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { identityVariables } from "../../scripts/local-idp/identity-env";
import { codeFor } from "../local-idp/flow-code";
import { cookieHeader, cookiesFrom, ORIGIN, REDIRECT_URL } from "./helpers";

const idp = inject("localIdp");
const ADA = "user_01ADALOVELACE0000000000000";

function client(overrides: Record<string, string> = {}, timeoutMs?: number) {
  return new DefaultIdentityClient({ ...identityVariables(idp), ...overrides }, timeoutMs ? { timeoutMs } : {});
}

const local = (path: string, body?: unknown) =>
  fetch(`${idp.url}/__local/${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function directory(): Promise<{ users: { id: string; email: string }[] }> {
  return (await (await local("directory")).json()) as never;
}

/** Starts a login on the app, gets a code for `userId` from the provider without the HTML step, calls back. */
async function loginThrough(app: Application<typeof env>, userId: string) {
  const jar: Record<string, string> = {};
  const start = await app.fetch(new Request(`${ORIGIN}/auth/login?return_to=/welcome`));
  cookiesFrom(start, jar);
  const authorize = new URL(start.headers.get("Location")!);
  const code = await codeFor(idp.url, authorize, userId, REDIRECT_URL);
  const callback = await app.fetch(
    new Request(`${ORIGIN}/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar) },
    }),
  );
  cookiesFrom(callback, jar);
  return { authorize, callback, jar };
}

function appWith(identityClient: DefaultIdentityClient) {
  return Application.create(env, {
    providers: [new AuthServiceProvider({ identityClient, redirectUrl: REDIRECT_URL })],
  });
}

describe("DefaultIdentityClient with the real SDK against the local provider", () => {
  beforeEach(async () => {
    const res = await local("reset", {});
    if (!res.ok) throw new Error(`local provider reset failed: ${res.status} ${await res.text()}`);
    await res.text();
  });

  it("names the missing credentials", () => {
    expect(() => new DefaultIdentityClient({ IDENTITY_CLIENT_ID: "x" })).toThrowError(/IDENTITY_API_KEY/);
    expect(() => new DefaultIdentityClient({})).toThrowError(/IDENTITY_API_KEY and IDENTITY_CLIENT_ID/);
  });

  it("builds the provider's authorization URL with PKCE and the exact redirect URI", async () => {
    const app = appWith(client());
    const res = await app.fetch(new Request(`${ORIGIN}/auth/login?organization_id=org_01ACME00000000000000000000`));
    const url = new URL(res.headers.get("Location")!);
    expect(url.origin).toBe(idp.url);
    expect(url.pathname).toBe("/user_management/authorize");
    expect(url.searchParams.get("client_id")).toBe(idp.clientId);
    expect(url.searchParams.get("redirect_uri")).toBe(REDIRECT_URL);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("provider")).toBe("authkit");
    // The provider's own page renders for this URL.
    const page = await fetch(url, { redirect: "manual" });
    expect(page.status, page.headers.get("Location") ?? "").toBe(200);
    expect(await page.text()).toContain("Ada");
  });

  it("completes a login: user, memberships with role and slug, provider session id", async () => {
    const { users } = await directory();
    expect(users.some((u) => u.id === ADA)).toBe(true);
    const app = appWith(client());
    const { callback, jar } = await loginThrough(app, ADA);
    expect(callback.status).toBe(302);
    expect(callback.headers.get("Location")).toBe("/welcome");
    const session = await app.container
      .resolve(SessionManager)
      .resolveSession(new Request(ORIGIN, { headers: { Cookie: cookieHeader(jar) } }));
    expect(session?.user).toMatchObject({ id: ADA, email: "ada@acme.test", firstName: "Ada", lastName: "Lovelace" });
    expect(session?.user.memberships).toContainEqual({
      organizationId: "org_01ACME00000000000000000000",
      organizationSlug: "acme",
      role: "admin",
    });
    expect(session?.record.providerSessionId).toMatch(/^session_/);
  });

  it("logout ends the provider session too", async () => {
    const app = appWith(client());
    const { jar } = await loginThrough(app, ADA);
    const before = (await (await local(`sessions?user_id=${ADA}`)).json()) as {
      data: { id: string; status: string }[];
    };
    expect(before.data.some((s) => s.status === "active")).toBe(true);
    await app.fetch(new Request(`${ORIGIN}/auth/logout`, { headers: { Cookie: cookieHeader(jar) } }));
    const after = (await (await local(`sessions?user_id=${ADA}`)).json()) as { data: { id: string; status: string }[] };
    expect(after.data.every((s) => s.status !== "active")).toBe(true);
  });

  it("answers a provider 5xx at callback with a 502 page and no session", async () => {
    const app = appWith(client());
    await local("faults", { endpoint: "authenticate", status: 500, count: 5 });
    const { callback, jar } = await loginThrough(app, ADA);
    expect(callback.status).toBe(502);
    expect(await callback.text()).toContain("provider_unavailable");
    expect(jar["__Host-gh_session"]).toBeUndefined();
  });

  it("gives up on a provider that hangs, within the configured timeout", async () => {
    const app = appWith(client({}, 300));
    await local("faults", { endpoint: "authenticate", delay_ms: 5_000, count: 1 });
    const started = Date.now();
    const { callback } = await loginThrough(app, ADA);
    expect(callback.status).toBe(502);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("treats refused credentials as a site problem (502), not the person's", async () => {
    const app = appWith(client({ IDENTITY_API_KEY: "sk_wrong" }));
    const { callback } = await loginThrough(app, ADA);
    expect(callback.status).toBe(502);
    expect(await callback.text()).toContain("misconfigured");
  });
});

describe("DefaultIdentityClient: step-up, impersonation and refresh against the local provider", () => {
  const VERIFIER = "v".repeat(43);
  const OPERATOR = { email: "support@acme.test", reason: "Ticket 42" };

  beforeEach(async () => {
    const res = await local("reset", {});
    if (!res.ok) throw new Error(`local provider reset failed: ${res.status}`);
    await res.text();
  });

  /** A code minted by the provider (no PKCE: the client secret authenticates the exchange). */
  async function mintedCode(body: Record<string, unknown> = {}): Promise<string> {
    const res = await local("codes", { user_id: ADA, ...body });
    if (res.status !== 201) throw new Error(`code refused: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { code: string }).code;
  }

  async function signIn(body: Record<string, unknown> = {}) {
    return client().authenticateWithCode({ code: await mintedCode(body), codeVerifier: VERIFIER });
  }

  it("passes prompt and maxAge through the real SDK; the provider's page asks to sign in again", async () => {
    const request = { redirectUri: REDIRECT_URL, state: "s", codeChallenge: "c".repeat(43) };
    const url = new URL(client().getAuthorizationUrl({ ...request, prompt: "login", maxAge: 300 }));
    expect(url.searchParams.get("prompt")).toBe("login");
    expect(url.searchParams.get("max_age")).toBe("300");
    const page = await fetch(url, { redirect: "manual" });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Sign in again to continue");
    expect(html).toContain("prompt=login, max_age=300s");
    const plain = new URL(client().getAuthorizationUrl(request));
    expect(plain.searchParams.has("prompt") || plain.searchParams.has("max_age")).toBe(false);
    expect(() => client().getAuthorizationUrl({ ...request, maxAge: -1 })).toThrowError(TypeError);
  });

  it("returns the provider's tokens and authenticatedAt from the access token's auth_time", async () => {
    const authTime = Math.floor(Date.now() / 1000) - 3600;
    const auth = await signIn({ auth_time: authTime });
    expect(auth.authenticatedAt).toBe(authTime * 1000);
    expect(auth.accessToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(auth.refreshToken).toBeTruthy();
    expect(auth.impersonator).toBeUndefined();
  });

  it("returns the impersonator the provider answers with", async () => {
    const armed = await local("impersonations", {
      user_id: ADA,
      impersonator_email: OPERATOR.email,
      reason: OPERATOR.reason,
    });
    expect(armed.status).toBe(201);
    await armed.text();
    const auth = await signIn();
    expect(auth.impersonator).toEqual(OPERATOR);
    expect(auth.user.id).toBe(ADA);
  });

  it("refreshTokens rotates; a second use of the old token is provider_error, and the provider saw one reuse", async () => {
    const auth = await signIn();
    const refreshed = await client().refreshTokens({ refreshToken: auth.refreshToken! });
    expect(refreshed.refreshToken).not.toBe(auth.refreshToken);
    expect(refreshed.accessToken).not.toBe(auth.accessToken);
    expect(refreshed.accessTokenExpiresAt).toBeGreaterThan(Date.now());
    expect(refreshed.accessTokenExpiresAt % 1000).toBe(0);

    const reuse = await client()
      .refreshTokens({ refreshToken: auth.refreshToken! })
      .catch((e: unknown) => e);
    expect(reuse).toMatchObject({ code: "provider_error", status: 400 });
    const stats = (await (await local("token-stats")).json()) as {
      by_session: Record<string, { refresh_calls: number; rotated: number; refused_reuse: number }>;
    };
    expect(stats.by_session[auth.user.providerSessionId!]).toEqual({ refresh_calls: 2, rotated: 1, refused_reuse: 1 });
    expect((await client().refreshTokens({ refreshToken: refreshed.refreshToken })).refreshToken).toBeTruthy();
  });

  it("sends a refresh once: a provider 5xx is provider_unavailable without an SDK retry, the token still good", async () => {
    const auth = await signIn();
    await (await local("faults", { endpoint: "authenticate", status: 502, count: 1 })).text();
    const failed = await client()
      .refreshTokens({ refreshToken: auth.refreshToken! })
      .catch((e: unknown) => e);
    // With the SDK's retry, the second attempt would have succeeded.
    expect(failed).toMatchObject({ code: "provider_unavailable", status: 502 });
    expect((await client().refreshTokens({ refreshToken: auth.refreshToken! })).refreshToken).toBeTruthy();
  });
});
