// The refresh-token grant's tally (`GET /__local/token-stats`): every refresh call and every reuse
// of a spent token is counted, in total and per provider session, so a relying party's tests can
// prove it refreshes once and never sends a refresh token twice. Reset clears it.
import { decodeJwt } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACME_ID, ADA_ID, GRACE_ID, type LocalIdp } from "../../scripts/local-idp/index.ts";
import { CLIENT_ID, localPost, login, resetIdp, sdk, startTestIdp } from "./helpers.ts";

let idp: LocalIdp;
beforeAll(async () => {
  idp = await startTestIdp();
});
afterAll(() => idp.close());
beforeEach(() => resetIdp(idp));

interface Tally {
  refresh_calls: number;
  rotated: number;
  refused_reuse: number;
}
async function stats(): Promise<Tally & { by_session: Record<string, Tally> }> {
  const res = await fetch(`${idp.url}/__local/token-stats`);
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

const refresh = (refreshToken: string) =>
  sdk(idp)
    .userManagement.authenticateWithRefreshToken({ clientId: CLIENT_ID, refreshToken })
    .catch((e: unknown) => e as { status: number; error: string });

const sidOf = (accessToken: string) => String(decodeJwt(accessToken).sid);

describe("GET /__local/token-stats", () => {
  it("starts empty", async () => {
    expect(await stats()).toEqual({ refresh_calls: 0, rotated: 0, refused_reuse: 0, by_session: {} });
  });

  it("counts each refresh and each refused reuse of a spent token, per session", async () => {
    const ada = await login(idp, ADA_ID, ACME_ID);
    const grace = await login(idp, GRACE_ID, ACME_ID);
    const first = await refresh(ada.refreshToken);
    expect(first).toHaveProperty("refreshToken");
    // The spent token is refused every time it comes back, and every attempt is counted.
    expect(await refresh(ada.refreshToken)).toMatchObject({ status: 400, error: "invalid_grant" });
    expect(await refresh(ada.refreshToken)).toMatchObject({ status: 400, error: "invalid_grant" });
    expect(await refresh(grace.refreshToken)).toHaveProperty("refreshToken");

    expect(await stats()).toEqual({
      refresh_calls: 4,
      rotated: 2,
      refused_reuse: 2,
      by_session: {
        [sidOf(ada.accessToken)]: { refresh_calls: 3, rotated: 1, refused_reuse: 2 },
        [sidOf(grace.accessToken)]: { refresh_calls: 1, rotated: 1, refused_reuse: 0 },
      },
    });
  });

  it("counts a refresh of an unknown token (no session) and of an ended session without calling it reuse", async () => {
    const ada = await login(idp, ADA_ID, ACME_ID);
    expect(await refresh("not-a-token")).toMatchObject({ status: 400, error: "invalid_grant" });
    await sdk(idp).userManagement.revokeSession({ sessionId: sidOf(ada.accessToken) });
    expect(await refresh(ada.refreshToken)).toMatchObject({ status: 400, error: "invalid_grant" });
    expect(await stats()).toEqual({
      refresh_calls: 2,
      rotated: 0,
      refused_reuse: 0,
      by_session: { [sidOf(ada.accessToken)]: { refresh_calls: 1, rotated: 0, refused_reuse: 0 } },
    });
  });

  it("does not count a call an injected fault answered: that token is still unspent", async () => {
    const ada = await login(idp, ADA_ID, ACME_ID);
    await localPost(idp, "faults", { endpoint: "authenticate", status: 503 });
    expect(await refresh(ada.refreshToken)).toMatchObject({ status: 503 });
    expect((await stats()).refresh_calls).toBe(0);
    expect(await refresh(ada.refreshToken)).toHaveProperty("refreshToken");
    expect((await stats()).rotated).toBe(1);
  });

  it("is cleared by reset", async () => {
    const ada = await login(idp, ADA_ID, ACME_ID);
    await refresh(ada.refreshToken);
    await resetIdp(idp);
    expect(await stats()).toEqual({ refresh_calls: 0, rotated: 0, refused_reuse: 0, by_session: {} });
  });
});
