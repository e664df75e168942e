// Re-authentication on the local provider: access tokens carry `auth_time` (the person's click on
// the sign-in page, kept across refreshes), and `max_age` / `prompt=login` from the real SDK's
// authorization URL are accepted and shown. Time is injected: no test sleeps.
import { decodeJwt } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACME_ID, ADA_ID, type LocalIdp } from "../../scripts/local-idp/index.ts";
import {
  CLIENT_ID,
  localPost,
  parseForms,
  REDIRECT_URI,
  resetIdp,
  sdk,
  signInThroughPage,
  startTestIdp,
  submitForm,
} from "./helpers.ts";

let idp: LocalIdp;
let clock = Date.UTC(2031, 4, 1, 12);
beforeAll(async () => {
  // The provider sends `auth_time` by default, as WorkOS's reauthentication page says AuthKit does
  // (set not to, it answers like WorkOS's emulator: see the last test).
  idp = await startTestIdp({ now: () => clock });
});
afterAll(() => idp.close());
beforeEach(async () => {
  clock = Date.UTC(2031, 4, 1, 12);
  await resetIdp(idp);
});

const seconds = (ms: number) => Math.floor(ms / 1000);

/** The real SDK's authorization URL, with the step-up options Gatehouse passes. */
async function flow(options: { maxAge?: number; prompt?: string } = {}, server: LocalIdp = idp) {
  const workos = sdk(server);
  const pkce = await workos.pkce.generate();
  const url = workos.userManagement.getAuthorizationUrl({
    provider: "authkit",
    clientId: CLIENT_ID,
    redirectUri: REDIRECT_URI,
    state: "st",
    codeChallenge: pkce.codeChallenge,
    codeChallengeMethod: "S256",
    ...options,
  });
  const exchange = (code: string) =>
    workos.userManagement.authenticateWithCode({ clientId: CLIENT_ID, code, codeVerifier: pkce.codeVerifier });
  return { workos, url, exchange };
}

describe("auth_time", () => {
  it("is the click on the sign-in page, not the page view or the code exchange", async () => {
    const { url, exchange } = await flow();
    const page = await (await fetch(url)).text();
    const form = parseForms(page).find((f) => f.user === ADA_ID && f.organization === ACME_ID);
    clock += 40_000; // the person reads the page for 40 s, then clicks
    const clickedAt = clock;
    const res = await submitForm(url, form?.fields ?? {}, form?.action);
    clock += 3_000; // the app exchanges the code a little later
    const auth = await exchange(new URL(res.headers.get("location") ?? "").searchParams.get("code") ?? "");
    const claims = decodeJwt(auth.accessToken);
    expect(claims.auth_time).toBe(seconds(clickedAt));
    expect(claims.iat).toBe(seconds(clock));
  });

  it("survives refreshes: a refresh is not an authentication", async () => {
    const { url, exchange } = await flow();
    const signedInAt = clock;
    const auth = await exchange((await signInThroughPage(url, ADA_ID, ACME_ID)).searchParams.get("code") ?? "");
    clock += 2 * 3600_000;
    const refreshed = await sdk(idp).userManagement.authenticateWithRefreshToken({
      clientId: CLIENT_ID,
      refreshToken: auth.refreshToken,
    });
    const claims = decodeJwt(refreshed.accessToken);
    expect(claims.auth_time).toBe(seconds(signedInAt));
    expect(claims.iat).toBe(seconds(clock));
  });

  it("can be set in the past on a code minted by POST /__local/codes, never in the future", async () => {
    const longAgo = seconds(clock) - 3 * 86_400;
    const minted = await localPost(idp, "codes", { user_id: ADA_ID, auth_time: longAgo });
    expect(minted.status).toBe(201);
    const body = (await minted.json()) as { code: string; auth_time: number };
    expect(body.auth_time).toBe(longAgo);
    const auth = await sdk(idp).userManagement.authenticateWithCode({ clientId: CLIENT_ID, code: body.code });
    expect(decodeJwt(auth.accessToken).auth_time).toBe(longAgo);
    // Without it, the code's minting is the authentication.
    const fresh = (await (await localPost(idp, "codes", { user_id: ADA_ID })).json()) as { auth_time: number };
    expect(fresh.auth_time).toBe(seconds(clock));
    for (const bad of [seconds(clock) + 60, -1, 1.5, "soon"]) {
      expect((await localPost(idp, "codes", { user_id: ADA_ID, auth_time: bad })).status, String(bad)).toBe(400);
    }
  });
});

describe("max_age and prompt on the authorization URL", () => {
  it("are passed by the SDK, accepted, and shown as a sign-in-again page whose click is fresh", async () => {
    const { url, exchange } = await flow({ maxAge: 300, prompt: "login" });
    const query = new URL(url).searchParams;
    expect(query.get("max_age")).toBe("300");
    expect(query.get("prompt")).toBe("login");
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<h1>Sign in again to continue</h1>");
    expect(html).toContain("prompt=login, max_age=300s");
    clock += 5_000;
    const auth = await exchange((await signInThroughPage(url, ADA_ID, ACME_ID)).searchParams.get("code") ?? "");
    expect(decodeJwt(auth.accessToken).auth_time).toBe(seconds(clock));
  });

  it("accept max_age=0 alone; a plain request shows the ordinary page", async () => {
    const zero = await (await fetch((await flow({ maxAge: 0 })).url)).text();
    expect(zero).toContain("Sign in again to continue");
    expect(zero).toContain("(max_age=0s)");
    const plain = await (await fetch((await flow()).url)).text();
    expect(plain).toContain("<h1>Sign in</h1>");
    expect(plain).not.toContain("again");
  });

  it.each([
    ["a negative max_age", { max_age: "-1" }, "invalid_request"],
    ["a max_age that is not a number", { max_age: "soon" }, "invalid_request"],
    ["an unknown prompt", { prompt: "bogus" }, "invalid_request"],
    ["prompt=none (this page always needs a person)", { prompt: "none" }, "login_required"],
  ])("sends %s back to the app as an OAuth error", async (_name, params, error) => {
    const url = new URL((await flow()).url);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location") ?? "");
    expect(location.searchParams.get("error")).toBe(error);
    expect(location.searchParams.get("state")).toBe("st");
  });
});

describe("set not to send auth_time (like WorkOS's emulator and its session-token reference)", () => {
  it("access tokens carry no auth_time", async () => {
    const plain = await startTestIdp({ now: () => clock, authTimeClaim: false });
    try {
      const { url, exchange } = await flow({}, plain);
      const { accessToken } = await exchange(
        (await signInThroughPage(url, ADA_ID, ACME_ID)).searchParams.get("code") ?? "",
      );
      expect(decodeJwt(accessToken).auth_time).toBeUndefined();
      expect(decodeJwt(accessToken).sid).toEqual(expect.any(String));
    } finally {
      await plain.close();
    }
  });
});
