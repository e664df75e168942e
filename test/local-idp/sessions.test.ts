// Provider sessions through the real SDK: rotating single-use refresh tokens (and organization
// switching), revokeSession, and the logout URL that ends the session and returns to the app.
import { NotFoundException, OauthException } from "@workos-inc/node";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACME_ID, ADA_ID, GLOBEX_ID, GRACE_ID, type LocalIdp } from "../../scripts/local-idp/index.ts";
import { CLIENT_ID, login, resetIdp, sdk, startTestIdp } from "./helpers.ts";

let idp: LocalIdp;
beforeAll(async () => {
  idp = await startTestIdp();
});
afterAll(() => idp.close());
beforeEach(() => resetIdp(idp));

async function liveSessionIds(): Promise<string[]> {
  const { data } = (await (await fetch(`${idp.url}/__local/sessions`)).json()) as { data: Array<{ id: string }> };
  return data.map((s) => s.id);
}

const sidOf = (accessToken: string) => String(decodeJwt(accessToken).sid);

describe("authenticateWithRefreshToken", () => {
  it("rotates: a new access and refresh token in the same session, and the old refresh token is dead", async () => {
    const auth = await login(idp, ADA_ID, ACME_ID);
    const workos = sdk(idp);
    const refreshed = await workos.userManagement.authenticateWithRefreshToken({
      clientId: CLIENT_ID,
      refreshToken: auth.refreshToken,
    });
    expect(refreshed.refreshToken).not.toBe(auth.refreshToken);
    expect(refreshed.accessToken).not.toBe(auth.accessToken);
    expect(sidOf(refreshed.accessToken)).toBe(sidOf(auth.accessToken));
    expect(refreshed.user.id).toBe(ADA_ID);
    expect(refreshed.organizationId).toBe(ACME_ID);

    const reused = await workos.userManagement
      .authenticateWithRefreshToken({ clientId: CLIENT_ID, refreshToken: auth.refreshToken })
      .catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(OauthException);
    expect(reused).toMatchObject({ status: 400, error: "invalid_grant" });

    const next = await workos.userManagement.authenticateWithRefreshToken({
      clientId: CLIENT_ID,
      refreshToken: refreshed.refreshToken,
    });
    expect(sidOf(next.accessToken)).toBe(sidOf(auth.accessToken));
  });

  it("switches the session to another organization of the user, and refuses one they are not in", async () => {
    const grace = await login(idp, GRACE_ID, ACME_ID);
    const workos = sdk(idp);
    const switched = await workos.userManagement.authenticateWithRefreshToken({
      clientId: CLIENT_ID,
      refreshToken: grace.refreshToken,
      organizationId: GLOBEX_ID,
    });
    expect(decodeJwt(switched.accessToken)).toMatchObject({ org_id: GLOBEX_ID, role: "admin" });

    const ada = await login(idp, ADA_ID, ACME_ID);
    const refused = await workos.userManagement
      .authenticateWithRefreshToken({ clientId: CLIENT_ID, refreshToken: ada.refreshToken, organizationId: GLOBEX_ID })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 400, error: "invalid_grant" });
  });
});

describe("revokeSession", () => {
  it("ends the provider session: gone from the live list and its refresh token refused", async () => {
    const auth = await login(idp, ADA_ID, ACME_ID);
    const sid = sidOf(auth.accessToken);
    expect(await liveSessionIds()).toEqual([sid]);
    const workos = sdk(idp);
    await workos.userManagement.revokeSession({ sessionId: sid });
    expect(await liveSessionIds()).toEqual([]);
    const err = await workos.userManagement
      .authenticateWithRefreshToken({ clientId: CLIENT_ID, refreshToken: auth.refreshToken })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, error: "invalid_grant", errorDescription: "Session has already ended." });
    // Revoking again is harmless; an unknown session is a 404.
    await workos.userManagement.revokeSession({ sessionId: sid });
    await expect(workos.userManagement.revokeSession({ sessionId: "session_unknown" })).rejects.toBeInstanceOf(
      NotFoundException,
    );
  });
});

describe("getLogoutUrl", () => {
  it("ends the session and redirects to return_to", async () => {
    const auth = await login(idp, GRACE_ID, GLOBEX_ID);
    const sid = sidOf(auth.accessToken);
    const url = sdk(idp).userManagement.getLogoutUrl({ sessionId: sid, returnTo: "http://127.0.0.1:8787/" });
    expect(url.startsWith(`${idp.url}/user_management/sessions/logout?`)).toBe(true);
    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://127.0.0.1:8787/");
    expect(await liveSessionIds()).toEqual([]);
  });

  it("shows a signed-out page without return_to", async () => {
    const auth = await login(idp, ADA_ID, ACME_ID);
    const res = await fetch(sdk(idp).userManagement.getLogoutUrl({ sessionId: sidOf(auth.accessToken) }));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Signed out");
    expect(await liveSessionIds()).toEqual([]);
  });

  it("refuses a return_to on another site and keeps the session", async () => {
    const auth = await login(idp, ADA_ID, ACME_ID);
    const sid = sidOf(auth.accessToken);
    const url = sdk(idp).userManagement.getLogoutUrl({ sessionId: sid, returnTo: "https://evil.example/" });
    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await liveSessionIds()).toEqual([sid]);
  });
});
