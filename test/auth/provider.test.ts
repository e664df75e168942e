import { env } from "cloudflare:workers";
import { Application } from "gatehouse-workers";
import {
  AuthConfigToken,
  AuthServiceProvider,
  DefaultIdentityClient,
  IdentityClientToken,
  KVSessionStore,
  parseJwtExpiry,
  SessionManager,
} from "gatehouse-workers/auth";
import { FakeIdentityClient } from "gatehouse-workers/testing";
import { describe, expect, it } from "vitest";
import { sha256Base64url } from "../../workers/auth/crypto";

describe("AuthServiceProvider", () => {
  it("registers SessionManager, KVSessionStore and the identity client in the container", () => {
    const fake = new FakeIdentityClient({ synthetic: false });
    const app = Application.create(env, { providers: [new AuthServiceProvider({ identityClient: fake })] });
    const sessions = app.container.resolve(SessionManager);
    expect(sessions).toBeInstanceOf(SessionManager);
    expect(app.container.resolve(KVSessionStore)).toBe(sessions.store);
    expect(app.container.resolve(IdentityClientToken)).toBe(fake);
    expect(app.container.resolve(AuthConfigToken).redirectUrl).toBe(env.AUTH_REDIRECT_URL);
  });

  it("registers DefaultIdentityClient when none is given, built from IDENTITY_* env", () => {
    const app = Application.create(
      { ...env, IDENTITY_API_KEY: "sk_test_x", IDENTITY_CLIENT_ID: "client_x" },
      { providers: [new AuthServiceProvider()] },
    );
    expect(app.container.resolve(IdentityClientToken)).toBeInstanceOf(DefaultIdentityClient);
  });

  it("names what is missing instead of failing obscurely", async () => {
    const app = Application.create({ SESSIONS: env.SESSIONS } as typeof env, {
      providers: [new AuthServiceProvider()],
    });
    expect(() => app.container.resolve(AuthConfigToken)).toThrowError(/AUTH_REDIRECT_URL/);
    const res = await app.fetch(new Request("https://auth.example.com/auth/login"));
    expect(res.status).toBe(500);
    const text = await res.text();
    // The code tells operators what kind of failure it is; the detail stays in the logs.
    expect(JSON.parse(text)).toEqual({ error: "config_missing", message: "Internal Server Error" });
    expect(text).not.toMatch(/AUTH_REDIRECT_URL|IDENTITY_API_KEY/);
  });

  it("mounts the three auth routes", async () => {
    const app = Application.create(env, {
      providers: [new AuthServiceProvider({ identityClient: new FakeIdentityClient({ synthetic: false }) })],
    });
    for (const path of ["/auth/login", "/auth/callback", "/auth/logout"]) {
      const res = await app.fetch(new Request(`https://auth.example.com${path}`));
      expect(res.status, path).not.toBe(404);
    }
  });

  it("refuses a synthetic FakeIdentityClient (it signs anyone in) unless the redirect URL is on loopback", async () => {
    const app = Application.create(env, {
      providers: [new AuthServiceProvider({ identityClient: new FakeIdentityClient() })],
    });
    expect(() => app.container.resolve(IdentityClientToken)).toThrowError(/loopback/);
    const res = await app.fetch(new Request("https://auth.example.com/auth/login"));
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain("FakeIdentityClient");
  });
});

describe("FakeIdentityClient (spec: synthetic users and tokens)", () => {
  const loopback = "http://127.0.0.1:8787/auth/callback";

  it("any code signs in a synthetic user, with tokens whose exp parseJwtExpiry reads", async () => {
    const fake = new FakeIdentityClient({ clock: () => Date.UTC(2030, 0, 1) });
    const first = await fake.authenticateWithCode({ code: "any-code-at-all", codeVerifier: "v" });
    expect(first.user.id).toMatch(/^user_fake_[0-9a-f]{20}$/);
    expect(first.user.email).toMatch(/@fake\.gatehouse\.test$/);
    expect(parseJwtExpiry(first.accessToken!)).toBe(Date.UTC(2030, 0, 1) / 1000 + 300);
    expect(first.refreshToken).toMatch(/^[\w-]+\.[\w-]+\.fake$/);
    // The same code names the same person; a second exchange of it is refused (one-time).
    await expect(fake.authenticateWithCode({ code: "any-code-at-all", codeVerifier: "v" })).rejects.toThrow();
    const other = new FakeIdentityClient();
    expect((await other.authenticateWithCode({ code: "any-code-at-all", codeVerifier: "v" })).user.id).toBe(
      first.user.id,
    );
  });

  it("issued codes keep working as issued: the added user, PKCE checked, one-time", async () => {
    const user = { id: "user_ada", email: "ada@acme.test", firstName: "Ada", lastName: "L", memberships: [] };
    const fake = new FakeIdentityClient({ users: [user] });
    const verifier = "x".repeat(43);
    const code = fake.issueCode("user_ada", { codeChallenge: await sha256Base64url(verifier) });
    await expect(fake.authenticateWithCode({ code, codeVerifier: "wrong" })).rejects.toThrow(/PKCE/);
    const again = fake.issueCode("user_ada", { codeChallenge: await sha256Base64url(verifier) });
    const login = await fake.authenticateWithCode({ code: again, codeVerifier: verifier });
    expect(login.user.id).toBe("user_ada");
    expect(login.accessToken).toBeTruthy();
    await expect(fake.authenticateWithCode({ code: again, codeVerifier: verifier })).rejects.toThrow();
  });

  it("synthetic: false refuses codes it did not issue", async () => {
    const fake = new FakeIdentityClient({ synthetic: false });
    await expect(fake.authenticateWithCode({ code: "never-issued", codeVerifier: "v" })).rejects.toThrow(/rejected/);
  });

  it("a worker on a loopback redirect URL signs anyone in through it, end to end", async () => {
    const app = Application.create(env, {
      providers: [new AuthServiceProvider({ identityClient: new FakeIdentityClient(), redirectUrl: loopback })],
    });
    const start = await app.fetch(new Request("http://127.0.0.1:8787/auth/login"));
    const jar = start.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const state = new URL(start.headers.get("Location")!).searchParams.get("state");
    const callback = await app.fetch(
      new Request(`http://127.0.0.1:8787/auth/callback?code=whatever&state=${state}`, { headers: { Cookie: jar } }),
    );
    expect(callback.status).toBe(302);
    expect(callback.headers.getSetCookie().some((c) => c.startsWith("gh_session="))).toBe(true);
  });
});
