/**
 * FakeIdentityClient's side of refresh, step-up and impersonation: tokens from the code exchange,
 * single-use rotating refresh tokens with every call recorded, `authenticatedAt`, impersonated
 * logins, and `prompt` / `max_age` on its authorization URL. The clock is injected.
 */
import { AuthError, parseJwtExpiry } from "gatehouse-workers/auth";
import { FakeIdentityClient } from "gatehouse-workers/testing";
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { ada, bob, TestClock } from "./helpers";

const OPERATOR = { email: "support@acme.test", reason: "Ticket 42" };

function setup() {
  const clock = new TestClock();
  const fake = new FakeIdentityClient({ users: [ada, bob], synthetic: false, clock: () => clock.now });
  return { clock, fake };
}

async function signIn(fake: FakeIdentityClient, userId = "user_ada", options = {}) {
  return fake.authenticateWithCode({ code: fake.issueCode(userId, options), codeVerifier: "v" });
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: unknown) => e,
  );

describe("FakeIdentityClient: the code exchange", () => {
  it("returns access and refresh tokens and authenticatedAt (the code's issue), also as auth_time", async () => {
    const { clock, fake } = setup();
    const code = fake.issueCode("user_ada", { organizationId: "org_acme" });
    const issuedAt = clock.now;
    clock.advance(30);
    const login = await fake.authenticateWithCode({ code, codeVerifier: "v" });
    expect(login.authenticatedAt).toBe(issuedAt);
    expect(login.refreshToken).toMatch(/^[\w-]+\.[\w-]+\.fake$/);
    expect(decodeJwt(login.accessToken!)).toMatchObject({
      sub: "user_ada",
      org_id: "org_acme",
      auth_time: Math.floor(issuedAt / 1000),
      exp: Math.floor(clock.now / 1000) + 300,
    });
    expect(login.impersonator).toBeUndefined();
    expect(decodeJwt(login.accessToken!).act).toBeUndefined();
    // Two logins of the same person never share a refresh token.
    expect((await signIn(fake)).refreshToken).not.toBe(login.refreshToken);
  });

  it("takes an older authenticatedAt and an impersonator from issueCode", async () => {
    const { clock, fake } = setup();
    const longAgo = clock.now - 3 * 86_400_000;
    const login = await signIn(fake, "user_bob", { authenticatedAt: longAgo, impersonator: OPERATOR });
    expect(login.authenticatedAt).toBe(longAgo);
    expect(login.impersonator).toEqual(OPERATOR);
    expect(decodeJwt(login.accessToken!)).toMatchObject({ act: { sub: OPERATOR.email } });
  });

  it("a synthetic code authenticates at the exchange", async () => {
    const clock = new TestClock();
    const fake = new FakeIdentityClient({ clock: () => clock.now });
    const login = await fake.authenticateWithCode({ code: "anything", codeVerifier: "v" });
    expect(login.authenticatedAt).toBe(clock.now);
    expect(login.refreshToken).toBeTruthy();
  });
});

describe("FakeIdentityClient.refreshTokens", () => {
  it("rotates: a new pair, expiry from the new exp, the old token refused, every call recorded", async () => {
    const { clock, fake } = setup();
    const login = await signIn(fake, "user_ada", { organizationId: "org_acme", impersonator: OPERATOR });
    clock.advance(3_600);
    const refreshed = await fake.refreshTokens({ refreshToken: login.refreshToken! });
    expect(refreshed.refreshToken).not.toBe(login.refreshToken);
    expect(refreshed.accessTokenExpiresAt).toBe((Math.floor(clock.now / 1000) + 300) * 1000);
    expect(parseJwtExpiry(refreshed.accessToken)! * 1000).toBe(refreshed.accessTokenExpiresAt);
    // A refresh is not an authentication; the impersonation and organization carry on.
    expect(decodeJwt(refreshed.accessToken)).toMatchObject({
      auth_time: Math.floor(login.authenticatedAt! / 1000),
      act: { sub: OPERATOR.email },
      org_id: "org_acme",
    });

    const reuse = await refusal(fake.refreshTokens({ refreshToken: login.refreshToken! }));
    expect(reuse).toBeInstanceOf(AuthError);
    expect(reuse).toMatchObject({ code: "provider_error", status: 400 });
    expect(await refusal(fake.refreshTokens({ refreshToken: "never-issued" }))).toMatchObject({
      code: "provider_error",
    });
    const next = await fake.refreshTokens({ refreshToken: refreshed.refreshToken });
    expect(next.refreshToken).not.toBe(refreshed.refreshToken);
    expect(fake.refreshCalls.map((c) => c.refreshToken)).toEqual([
      login.refreshToken,
      login.refreshToken,
      "never-issued",
      refreshed.refreshToken,
    ]);
  });

  it("refuses the refresh token of a revoked provider session", async () => {
    const { fake } = setup();
    const login = await signIn(fake);
    await fake.revokeSession(login.user.providerSessionId!);
    expect(await refusal(fake.refreshTokens({ refreshToken: login.refreshToken! }))).toMatchObject({
      code: "provider_error",
      status: 400,
    });
  });

  it("switches organization only into one the user belongs to", async () => {
    const { fake } = setup();
    const login = await signIn(fake, "user_ada", { organizationId: "org_acme" });
    const globex = await fake.refreshTokens({ refreshToken: login.refreshToken!, organizationId: "org_globex" });
    expect(decodeJwt(globex.accessToken).org_id).toBe("org_globex");
    expect(
      await refusal(fake.refreshTokens({ refreshToken: globex.refreshToken, organizationId: "org_initech" })),
    ).toMatchObject({ code: "provider_error" });
  });

  it("failNextRefresh fails one call the way a provider would, leaving the token unspent", async () => {
    const { fake } = setup();
    const login = await signIn(fake);
    fake.failNextRefresh("provider_unavailable");
    expect(await refusal(fake.refreshTokens({ refreshToken: login.refreshToken! }))).toMatchObject({
      code: "provider_unavailable",
      status: 502,
    });
    fake.failNextRefresh("provider_error");
    expect(await refusal(fake.refreshTokens({ refreshToken: login.refreshToken! }))).toMatchObject({
      code: "provider_error",
      status: 400,
    });
    expect((await fake.refreshTokens({ refreshToken: login.refreshToken! })).refreshToken).toBeTruthy();
    expect(fake.refreshCalls).toHaveLength(3);
  });
});

describe("FakeIdentityClient.getAuthorizationUrl", () => {
  it("records prompt and max_age on the URL and in authorizations", () => {
    const { fake } = setup();
    const request = {
      redirectUri: "https://auth.example.com/auth/callback",
      state: "s",
      codeChallenge: "c".repeat(43),
      prompt: "login" as const,
      maxAge: 0,
    };
    const url = new URL(fake.getAuthorizationUrl(request));
    expect(url.searchParams.get("prompt")).toBe("login");
    expect(url.searchParams.get("max_age")).toBe("0");
    expect(fake.authorizations.at(-1)).toEqual(request);
    const plain = new URL(fake.getAuthorizationUrl({ ...request, prompt: undefined, maxAge: undefined }));
    expect(plain.searchParams.has("prompt")).toBe(false);
    expect(plain.searchParams.has("max_age")).toBe(false);
  });
});
