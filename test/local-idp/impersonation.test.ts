// Impersonation on the local provider: `POST /__local/impersonations` (or the directory page's
// "Sign in as … (impersonate)") arms the next code for a user, whose authentication then answers
// WorkOS's `impersonator: { email, reason }` and whose access tokens carry `act: { sub }`.
import { decodeJwt } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACME_ID, ADA_ID, GLOBEX_ID, GRACE_ID, type LocalIdp } from "../../scripts/local-idp/index.ts";
import { CLIENT_ID, localPost, login, parseForms, resetIdp, sdk, startFlow, startTestIdp } from "./helpers.ts";

let idp: LocalIdp;
beforeAll(async () => {
  idp = await startTestIdp();
});
afterAll(() => idp.close());
beforeEach(() => resetIdp(idp));

const OPERATOR = "support@acme.test";

async function arm(body: Record<string, unknown>) {
  const res = await localPost(idp, "impersonations", body);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function pending(): Promise<Array<Record<string, unknown>>> {
  return ((await (await fetch(`${idp.url}/__local/impersonations`)).json()) as { data: never }).data;
}

async function codeLogin(userId: string, organizationId?: string) {
  const res = await localPost(idp, "codes", { user_id: userId, organization_id: organizationId });
  const { code } = (await res.json()) as { code: string };
  return sdk(idp).userManagement.authenticateWithCode({ clientId: CLIENT_ID, code });
}

describe("POST /__local/impersonations", () => {
  it("makes the next code for the user an impersonation: impersonator, act claim, kept on refresh, once", async () => {
    const armed = await arm({ user_id: ADA_ID, impersonator_email: OPERATOR, reason: "Ticket 42" });
    expect(armed).toEqual({
      status: 201,
      body: {
        impersonation: {
          user_id: ADA_ID,
          impersonator: { email: OPERATOR, reason: "Ticket 42" },
          organization_id: null,
          created_at: expect.any(String),
        },
      },
    });
    const auth = await codeLogin(ADA_ID);
    expect(auth.impersonator).toEqual({ email: OPERATOR, reason: "Ticket 42" });
    expect(auth.authenticationMethod).toBe("Impersonation");
    expect(decodeJwt(auth.accessToken)).toMatchObject({ sub: ADA_ID, act: { sub: OPERATOR } });
    const sessions = (await (await fetch(`${idp.url}/__local/sessions?user_id=${ADA_ID}`)).json()) as {
      data: Array<{ impersonator: unknown }>;
    };
    expect(sessions.data[0]?.impersonator).toEqual({ email: OPERATOR, reason: "Ticket 42" });

    const refreshed = await sdk(idp).userManagement.authenticateWithRefreshToken({
      clientId: CLIENT_ID,
      refreshToken: auth.refreshToken,
    });
    expect(refreshed.impersonator).toEqual({ email: OPERATOR, reason: "Ticket 42" });
    expect(decodeJwt(refreshed.accessToken).act).toEqual({ sub: OPERATOR });

    expect(await pending()).toEqual([]);
    const next = await codeLogin(ADA_ID);
    expect(next.impersonator).toBeUndefined();
    expect(next.authenticationMethod).toBe("Password");
    expect(decodeJwt(next.accessToken).act).toBeUndefined();
  });

  it("without a reason answers reason null", async () => {
    await arm({ user_id: ADA_ID, impersonator_email: OPERATOR });
    expect((await codeLogin(ADA_ID)).impersonator).toEqual({ email: OPERATOR, reason: null });
  });

  it("with organization_id waits for a sign-in into that organization", async () => {
    expect((await arm({ user_id: GRACE_ID, impersonator_email: OPERATOR, organization_id: GLOBEX_ID })).status).toBe(
      201,
    );
    expect((await codeLogin(GRACE_ID, ACME_ID)).impersonator).toBeUndefined();
    expect(await pending()).toHaveLength(1);
    const auth = await codeLogin(GRACE_ID, GLOBEX_ID);
    expect(auth.impersonator).toEqual({ email: OPERATOR, reason: null });
    expect(auth.organizationId).toBe(GLOBEX_ID);
  });

  it.each([
    ["no user_id", { impersonator_email: OPERATOR }, 400],
    ["an unknown user", { user_id: "user_nobody", impersonator_email: OPERATOR }, 404],
    ["no impersonator_email", { user_id: ADA_ID }, 400],
    ["an impersonator_email that is not an email", { user_id: ADA_ID, impersonator_email: "support" }, 400],
    [
      "an organization the user is not in",
      { user_id: ADA_ID, impersonator_email: OPERATOR, organization_id: GLOBEX_ID },
      400,
    ],
    ["a reason over 500 characters", { user_id: ADA_ID, impersonator_email: OPERATOR, reason: "x".repeat(501) }, 400],
  ])("refuses %s", async (_name, body, status) => {
    const res = await arm(body);
    expect(res.status).toBe(status);
    expect(res.body).toHaveProperty("code");
    expect(await pending()).toEqual([]);
  });

  it("is listed, cancelled with DELETE, and cleared by reset", async () => {
    await arm({ user_id: ADA_ID, impersonator_email: OPERATOR });
    expect((await pending()).map((p) => p.user_id)).toEqual([ADA_ID]);
    const cancelled = await fetch(`${idp.url}/__local/impersonations/${ADA_ID}`, { method: "DELETE" });
    expect(cancelled.status).toBe(200);
    expect(await pending()).toEqual([]);
    expect((await fetch(`${idp.url}/__local/impersonations/${ADA_ID}`, { method: "DELETE" })).status).toBe(404);
    await arm({ user_id: ADA_ID, impersonator_email: OPERATOR });
    await resetIdp(idp);
    expect(await pending()).toEqual([]);
  });
});

describe("on the pages", () => {
  async function directory(): Promise<{ html: string; token: string }> {
    const html = await (await fetch(`${idp.url}/`)).text();
    return { html, token: /name="token" value="([^"]+)"/.exec(html)?.[1] ?? "" };
  }
  const post = (action: string, fields: Record<string, string>) =>
    fetch(`${idp.url}${action}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
      redirect: "manual",
    });

  it("the directory arms it with its form token, the sign-in page shows it, and the click signs in impersonated", async () => {
    const { html, token } = await directory();
    expect(html).toContain(`action="/dashboard/users/${ADA_ID}/impersonate"`);
    expect(html).toContain("Sign in as Ada Lovelace (impersonate)");
    const fields = { impersonator_email: OPERATOR, reason: "Ticket 7", organization_id: ACME_ID };
    expect((await post(`/dashboard/users/${ADA_ID}/impersonate`, { ...fields, token: "wrong" })).status).toBe(403);
    expect(await pending()).toEqual([]);
    const res = await post(`/dashboard/users/${ADA_ID}/impersonate`, { ...fields, token });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    expect((await directory()).html).toContain(`Impersonation armed: the next sign-in of Ada Lovelace into Acme`);

    const { url } = await startFlow(idp);
    const page = await (await fetch(url)).text();
    expect(page).toContain(`data-impersonated-by="${OPERATOR}"`);
    // The choice forms themselves are unchanged.
    expect(parseForms(page).some((f) => f.user === ADA_ID && f.organization === ACME_ID)).toBe(true);
    const auth = await login(idp, ADA_ID, ACME_ID);
    expect(auth.impersonator).toEqual({ email: OPERATOR, reason: "Ticket 7" });
    expect((await directory()).html).not.toContain("Impersonation armed");
  });

  it("the directory's cancel form disarms it", async () => {
    await arm({ user_id: ADA_ID, impersonator_email: OPERATOR });
    const { html, token } = await directory();
    expect(html).toContain(`action="/dashboard/users/${ADA_ID}/impersonation/cancel"`);
    expect((await post(`/dashboard/users/${ADA_ID}/impersonation/cancel`, { token: "wrong" })).status).toBe(403);
    expect((await post(`/dashboard/users/${ADA_ID}/impersonation/cancel`, { token })).status).toBe(303);
    expect(await pending()).toEqual([]);
  });
});
