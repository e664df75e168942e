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
