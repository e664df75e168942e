import { env } from "cloudflare:workers";
import { Application } from "gatehouse";
import {
  AuthConfigToken,
  AuthServiceProvider,
  DefaultIdentityClient,
  FakeIdentityClient,
  IdentityClientToken,
  KVSessionStore,
  SessionManager,
} from "gatehouse/auth";
import { describe, expect, it } from "vitest";

describe("AuthServiceProvider", () => {
  it("registers SessionManager, KVSessionStore and the identity client in the container", () => {
    const fake = new FakeIdentityClient();
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
      providers: [new AuthServiceProvider({ identityClient: new FakeIdentityClient() })],
    });
    for (const path of ["/auth/login", "/auth/callback", "/auth/logout"]) {
      const res = await app.fetch(new Request(`https://auth.example.com${path}`));
      expect(res.status, path).not.toBe(404);
    }
  });
});
