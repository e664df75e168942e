// The /__local/ controls Gatehouse tests rely on: fault injection (status and hang, seen through
// the real SDK, including its retries and timeout), codes minted without the page, reset, sessions.
import { GenericServerException } from "@workos-inc/node";
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

async function faults(): Promise<unknown[]> {
  return ((await (await fetch(`${idp.url}/__local/faults`)).json()) as { data: unknown[] }).data;
}

async function mintCode(body: Record<string, unknown>) {
  const res = await localPost(idp, "codes", body);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("fault injection", () => {
  it("fails the next N calls of one endpoint with the given status, then answers normally", async () => {
    const created = await localPost(idp, "faults", { endpoint: "organizations", status: 503, count: 2 });
    expect(created.status).toBe(201);
    expect(await faults()).toEqual([{ endpoint: "organizations", status: 503, delay_ms: 0, remaining: 2 }]);
    const workos = sdk(idp);
    for (let i = 0; i < 2; i++) {
      const err = await workos.organizations.getOrganization(ACME_ID).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GenericServerException);
      expect(err).toMatchObject({ status: 503 });
    }
    expect((await workos.organizations.getOrganization(ACME_ID)).id).toBe(ACME_ID);
    // Other endpoints were never affected.
    expect(await faults()).toEqual([]);
  });

  it("is absorbed by the SDK's own retries when fewer failures than retries are injected", async () => {
    await localPost(idp, "faults", { endpoint: "users", status: 500, count: 1 });
    const user = await sdk(idp, { maxRetries: 1 }).userManagement.getUser(ADA_ID);
    expect(user.id).toBe(ADA_ID);
  });

  it("fails the code exchange with a 5xx without spending the code", async () => {
    const { body } = await mintCode({ user_id: ADA_ID });
    await localPost(idp, "faults", { endpoint: "authenticate", status: 502 });
    const workos = sdk(idp);
    const err = await workos.userManagement
      .authenticateWithCode({ clientId: CLIENT_ID, code: String(body.code) })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 502 });
    const auth = await workos.userManagement.authenticateWithCode({ clientId: CLIENT_ID, code: String(body.code) });
    expect(auth.user.id).toBe(ADA_ID);
  });

  it("hangs a call past the client's timeout, and a call abandoned mid-hang changes nothing", async () => {
    const { body } = await mintCode({ user_id: ADA_ID });
    await localPost(idp, "faults", { endpoint: "authenticate", delay_ms: 2_000 });
    const impatient = sdk(idp, { timeout: 200 });
    const started = Date.now();
    const err = await impatient.userManagement
      .authenticateWithCode({ clientId: CLIENT_ID, code: String(body.code) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(Date.now() - started).toBeLessThan(1_500);
    const auth = await sdk(idp).userManagement.authenticateWithCode({ clientId: CLIENT_ID, code: String(body.code) });
    expect(auth.user.id).toBe(ADA_ID);
  });

  it.each([
    [{ endpoint: "nope", status: 500 }],
    [{ endpoint: "users" }],
    [{ endpoint: "users", status: 200 }],
    [{ endpoint: "users", delay_ms: -1 }],
    [{ endpoint: "users", status: 500, count: 0 }],
  ])("refuses an invalid fault %j with 400", async (fault) => {
    const res = await localPost(idp, "faults", fault);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_request" });
  });

  it("clears faults with DELETE /__local/faults and with reset", async () => {
    await localPost(idp, "faults", { endpoint: "jwks", status: 500 });
    await fetch(`${idp.url}/__local/faults`, { method: "DELETE" });
    expect(await faults()).toEqual([]);
    await localPost(idp, "faults", { endpoint: "jwks", status: 500 });
    await resetIdp(idp);
    expect(await faults()).toEqual([]);
  });
});

describe("POST /__local/codes", () => {
  it("mints a code a PKCE exchange accepts, with state and the callback URL", async () => {
    const workos = sdk(idp);
    const pkce = await workos.pkce.generate();
    const { status, body } = await mintCode({
      user_id: GRACE_ID,
      organization_id: ACME_ID,
      state: "xyz",
      code_challenge: pkce.codeChallenge,
      redirect_uri: "http://127.0.0.1:8787/auth/callback",
    });
    expect(status).toBe(201);
    const callback = new URL(String(body.redirect_url));
    expect(callback.searchParams.get("code")).toBe(body.code);
    expect(callback.searchParams.get("state")).toBe("xyz");
    const auth = await workos.userManagement.authenticateWithCode({
      clientId: CLIENT_ID,
      code: String(body.code),
      codeVerifier: pkce.codeVerifier,
    });
    expect(decodeJwt(auth.accessToken)).toMatchObject({ sub: GRACE_ID, org_id: ACME_ID, role: "member" });
  });

  it("picks the only organization when none is given, and refuses ambiguous or foreign ones", async () => {
    expect((await mintCode({ user_id: ADA_ID })).body.organization_id).toBe(ACME_ID);
    expect(await mintCode({ user_id: GRACE_ID })).toMatchObject({ status: 400 });
    expect(await mintCode({ user_id: ADA_ID, organization_id: "org_01GLOBEX000000000000000000" })).toMatchObject({
      status: 400,
    });
    expect(await mintCode({ user_id: "user_nobody" })).toMatchObject({ status: 400 });
    expect(await mintCode({ user_id: ADA_ID, code_challenge: "too-short" })).toMatchObject({ status: 400 });
  });
});

describe("state controls", () => {
  it("lists live sessions (optionally per user) and reset ends them all", async () => {
    const ada = await login(idp, ADA_ID, ACME_ID);
    await login(idp, GRACE_ID, ACME_ID);
    const all = (await (await fetch(`${idp.url}/__local/sessions`)).json()) as { data: unknown[] };
    expect(all.data).toHaveLength(2);
    const mine = (await (await fetch(`${idp.url}/__local/sessions?user_id=${ADA_ID}`)).json()) as {
      data: Array<Record<string, unknown>>;
    };
    expect(mine.data).toEqual([
      {
        id: decodeJwt(ada.accessToken).sid,
        user_id: ADA_ID,
        organization_id: ACME_ID,
        status: "active",
        created_at: expect.any(String),
        // The session's last authentication is listed; its tokens carry it only when the provider is set to.
        auth_time: expect.any(Number),
        impersonator: null,
      },
    ]);
    await resetIdp(idp);
    expect(((await (await fetch(`${idp.url}/__local/sessions`)).json()) as { data: unknown[] }).data).toEqual([]);
    const stale = await sdk(idp)
      .userManagement.authenticateWithRefreshToken({ clientId: CLIENT_ID, refreshToken: ada.refreshToken })
      .catch((e: unknown) => e);
    expect(stale).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("answers unknown routes and malformed bodies with JSON errors, never a stack", async () => {
    const missing = await fetch(`${idp.url}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: "not_found" });
    const malformed = await fetch(`${idp.url}/__local/codes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ code: "invalid_request", message: "Body is not valid JSON" });
    const oauth = await fetch(`${idp.url}/user_management/authenticate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_id: CLIENT_ID, grant_type: "password" }),
    });
    expect(oauth.status).toBe(400);
    expect(await oauth.json()).toEqual({
      error: "unsupported_grant_type",
      error_description: "Unsupported grant_type 'password'.",
    });
  });
});
