// The whole hosted-login flow with the real @workos-inc/node SDK against the local provider:
// authorization URL → sign-in page → code → authenticateWithCode (PKCE) → access token verified
// against the JWKS; plus every way the code exchange must refuse.
import { OauthException, UnauthorizedException } from "@workos-inc/node";
import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ACME_ID,
  ADA_ID,
  ALAN_ID,
  GLOBEX_ID,
  GRACE_ID,
  type LocalIdp,
  MARGARET_ID,
} from "../../scripts/local-idp/index.ts";
import {
  CLIENT_ID,
  login,
  parseForms,
  REDIRECT_URI,
  resetIdp,
  sdk,
  signInThroughPage,
  startFlow as startTestFlow,
  startTestIdp,
} from "./helpers.ts";

let idp: LocalIdp;
let clock = Date.now();
beforeAll(async () => {
  idp = await startTestIdp({ now: () => clock });
});
afterAll(() => idp.close());
beforeEach(async () => {
  clock = Date.now();
  await resetIdp(idp);
});

function startFlow(options: { organizationId?: string } = {}) {
  return startTestFlow(idp, { state: "state-123", ...options });
}

describe("sign-in page", () => {
  it("offers every demo user, one button per organization, and none for a user without one", async () => {
    const { url } = await startFlow();
    expect(url.startsWith(`${idp.url}/user_management/authorize?`)).toBe(true);
    const forms = parseForms(await (await fetch(url)).text());
    const choices = forms.map((f) => `${f.user}/${f.organization}`);
    expect(choices.sort()).toEqual(
      [
        `${ADA_ID}/${ACME_ID}`,
        `${GRACE_ID}/${ACME_ID}`,
        `${GRACE_ID}/${GLOBEX_ID}`,
        `${ALAN_ID}/${ACME_ID}`,
        `${MARGARET_ID}/`,
      ].sort(),
    );
  });

  it("offers only the members of the organization the app asked for", async () => {
    const { url } = await startFlow({ organizationId: GLOBEX_ID });
    const forms = parseForms(await (await fetch(url)).text());
    expect(forms.map((f) => `${f.user}/${f.organization}`)).toEqual([`${GRACE_ID}/${GLOBEX_ID}`]);
  });

  it("redirects to redirect_uri with a code and the unchanged state", async () => {
    const { url } = await startFlow();
    const callback = await signInThroughPage(url, ADA_ID, ACME_ID);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get("state")).toBe("state-123");
    expect(callback.searchParams.get("code")).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});

describe("authenticateWithCode", () => {
  it("returns the user and a signed access token with sid, org_id, role and permissions", async () => {
    const { workos, pkce, url } = await startFlow();
    const code = (await signInThroughPage(url, ADA_ID, ACME_ID)).searchParams.get("code") ?? "";
    const auth = await workos.userManagement.authenticateWithCode({
      clientId: CLIENT_ID,
      code,
      codeVerifier: pkce.codeVerifier,
    });
    expect(auth.user).toMatchObject({ id: ADA_ID, email: "ada@acme.test", firstName: "Ada", lastName: "Lovelace" });
    expect(auth.organizationId).toBe(ACME_ID);
    expect(auth.authenticationMethod).toBe("Password");
    expect(auth.refreshToken.length).toBeGreaterThan(30);

    const jwks = createRemoteJWKSet(new URL(workos.userManagement.getJwksUrl(CLIENT_ID)));
    const { payload, protectedHeader } = await jwtVerify(auth.accessToken, jwks, { issuer: idp.url });
    expect(protectedHeader.alg).toBe("RS256");
    expect(payload).toMatchObject({ sub: ADA_ID, org_id: ACME_ID, role: "admin", roles: ["admin"] });
    expect(payload.permissions).toContain("members:manage");
    expect(payload.sid).toMatch(/^session_[0-9A-Z]{26}$/);
    expect(typeof payload.jti).toBe("string");
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(300);
    // Each login is a new provider session.
    const again = await login(idp, ADA_ID, ACME_ID);
    expect(decodeJwt(again.accessToken).sid).not.toBe(payload.sid);
  });

  it("carries the role of the organization that was picked", async () => {
    const intoGlobex = decodeJwt((await login(idp, GRACE_ID, GLOBEX_ID)).accessToken);
    expect(intoGlobex).toMatchObject({ org_id: GLOBEX_ID, role: "admin" });
    const intoAcme = decodeJwt((await login(idp, GRACE_ID, ACME_ID)).accessToken);
    expect(intoAcme).toMatchObject({ org_id: ACME_ID, role: "member" });
    expect(intoAcme.permissions).not.toContain("members:manage");
  });

  it("signs a user without an organization in with no org_id and no role", async () => {
    const auth = await login(idp, MARGARET_ID, "");
    expect(auth.organizationId).toBeUndefined();
    const claims = decodeJwt(auth.accessToken);
    expect(claims.org_id).toBeUndefined();
    expect(claims.role).toBeUndefined();
    expect(claims.sub).toBe(MARGARET_ID);
  });

  it("rejects a replayed code", async () => {
    const { workos, pkce, url } = await startFlow();
    const code = (await signInThroughPage(url, ALAN_ID, ACME_ID)).searchParams.get("code") ?? "";
    const exchange = () =>
      workos.userManagement.authenticateWithCode({ clientId: CLIENT_ID, code, codeVerifier: pkce.codeVerifier });
    await exchange();
    const err = await exchange().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OauthException);
    expect(err).toMatchObject({
      status: 400,
      error: "invalid_grant",
      errorDescription: "The code has already been used.",
    });
  });

  it("rejects a wrong code verifier, and the code is spent after the attempt", async () => {
    const { workos, pkce, url } = await startFlow();
    const code = (await signInThroughPage(url, ALAN_ID, ACME_ID)).searchParams.get("code") ?? "";
    const other = await workos.pkce.generate();
    const wrong = await workos.userManagement
      .authenticateWithCode({ clientId: CLIENT_ID, code, codeVerifier: other.codeVerifier })
      .catch((e: unknown) => e);
    expect(wrong).toMatchObject({ status: 400, error: "invalid_grant", errorDescription: "Invalid code_verifier." });
    const right = await workos.userManagement
      .authenticateWithCode({ clientId: CLIENT_ID, code, codeVerifier: pkce.codeVerifier })
      .catch((e: unknown) => e);
    expect(right).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("rejects a wrong API key with 401 without spending the code", async () => {
    const { pkce, url } = await startFlow();
    const code = (await signInThroughPage(url, ALAN_ID, ACME_ID)).searchParams.get("code") ?? "";
    const impostor = sdk(idp, { apiKey: "sk_test_wrong" });
    const err = await impostor.userManagement
      .authenticateWithCode({ clientId: CLIENT_ID, code, codeVerifier: pkce.codeVerifier })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnauthorizedException);
    const auth = await sdk(idp).userManagement.authenticateWithCode({
      clientId: CLIENT_ID,
      code,
      codeVerifier: pkce.codeVerifier,
    });
    expect(auth.user.id).toBe(ALAN_ID);
  });

  it("rejects an unknown client id and a made-up code", async () => {
    const { pkce, url } = await startFlow();
    const code = (await signInThroughPage(url, ALAN_ID, ACME_ID)).searchParams.get("code") ?? "";
    const workos = sdk(idp);
    const unknownClient = await workos.userManagement
      .authenticateWithCode({ clientId: "client_other", code, codeVerifier: pkce.codeVerifier })
      .catch((e: unknown) => e);
    expect(unknownClient).toMatchObject({ status: 400, error: "invalid_client" });
    const madeUp = await workos.userManagement
      .authenticateWithCode({ clientId: CLIENT_ID, code: "not-a-code", codeVerifier: pkce.codeVerifier })
      .catch((e: unknown) => e);
    expect(madeUp).toMatchObject({ status: 400, error: "invalid_grant", errorDescription: "The code is invalid." });
  });

  it("rejects a code older than 10 minutes", async () => {
    const { workos, pkce, url } = await startFlow();
    const code = (await signInThroughPage(url, ADA_ID, ACME_ID)).searchParams.get("code") ?? "";
    clock += 10 * 60 * 1000 + 1;
    const err = await workos.userManagement
      .authenticateWithCode({ clientId: CLIENT_ID, code, codeVerifier: pkce.codeVerifier })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, error: "invalid_grant", errorDescription: "The code has expired." });
  });

  it("requires the verifier for a code issued with a challenge, even with the client secret", async () => {
    const { workos, url } = await startFlow();
    const code = (await signInThroughPage(url, ADA_ID, ACME_ID)).searchParams.get("code") ?? "";
    const err = await workos.userManagement
      .authenticateWithCode({ clientId: CLIENT_ID, code })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, error: "invalid_grant" });
  });
});
