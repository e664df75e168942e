// The sign-in page's own rules: which requests get a page, which get a 400 page and which are sent
// back to the app with an OAuth error; the page's headers; cancel; one-time form submissions.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACME_ID, ADA_ID, GLOBEX_ID, type LocalIdp } from "../../scripts/local-idp/index.ts";
import { CLIENT_ID, parseForms, REDIRECT_URI, resetIdp, startTestIdp, submitForm } from "./helpers.ts";

let idp: LocalIdp;
beforeAll(async () => {
  idp = await startTestIdp({ redirectOrigins: ["https://app.example.com"] });
});
afterAll(() => idp.close());
beforeEach(() => resetIdp(idp));

const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

function authorizeUrl(overrides: Record<string, string | null> = {}): string {
  const params: Record<string, string | null> = {
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    response_type: "code",
    provider: "authkit",
    state: "s1",
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
    ...overrides,
  };
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== null));
  return `${idp.url}/user_management/authorize?${query}`;
}

async function get(url: string) {
  const res = await fetch(url, { redirect: "manual" });
  return { res, body: await res.text() };
}

describe("authorize parameters", () => {
  it.each([
    ["a missing client_id", { client_id: null }],
    ["an unknown client_id", { client_id: "client_someone_else" }],
    ["a missing redirect_uri", { redirect_uri: null }],
    ["a redirect_uri on another site", { redirect_uri: "https://evil.example/cb" }],
    ["a javascript: redirect_uri", { redirect_uri: "javascript:alert(1)" }],
    ["a redirect_uri with credentials", { redirect_uri: "http://user:pw@127.0.0.1/cb" }],
  ])("answers %s with a 400 page and no redirect", async (_name, overrides) => {
    const { res, body } = await get(authorizeUrl(overrides));
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(body).toContain("<h1>");
  });

  it("accepts a redirect_uri on an origin given in redirectOrigins", async () => {
    const { res } = await get(authorizeUrl({ redirect_uri: "https://app.example.com/auth/callback" }));
    expect(res.status).toBe(200);
  });

  it.each([
    ["response_type other than code", { response_type: "token" }, "unsupported_response_type"],
    ["the plain PKCE method", { code_challenge_method: "plain" }, "invalid_request"],
    ["a challenge that is not S256", { code_challenge: "short" }, "invalid_request"],
    ["an unknown organization", { organization_id: "org_nope" }, "invalid_request"],
  ])("sends %s back to the app as an OAuth error with the state", async (_name, overrides, error) => {
    const { res } = await get(authorizeUrl(overrides));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location") ?? "");
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get("error")).toBe(error);
    expect(location.searchParams.get("state")).toBe("s1");
    expect(location.searchParams.get("code")).toBeNull();
  });
});

describe("the page", () => {
  it("is static HTML that cannot be framed, cached or scripted", async () => {
    const { res, body } = await get(authorizeUrl());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(body).not.toContain("<script");
    expect(body).toContain("Ada Lovelace");
    expect(body).toContain("to 127.0.0.1:8787");
  });

  it("escapes what the request controls on its error pages", async () => {
    const hostile = await get(authorizeUrl({ redirect_uri: "https://evil.example/<script>alert(1)</script>" }));
    expect(hostile.res.status).toBe(400);
    expect(hostile.body).not.toContain("<script>");
    expect(hostile.body).toContain("&lt;script&gt;");
    const client = await get(authorizeUrl({ client_id: '"><img src=x onerror=alert(1)>' }));
    expect(client.body).not.toContain("<img");
  });

  it("sends the person back with access_denied when they cancel", async () => {
    const { body } = await get(authorizeUrl());
    const requestId = parseForms(body)[0]?.fields.request_id ?? "";
    const res = await submitForm(idp.url, { request_id: requestId, cancel: "1" });
    const location = new URL(res.headers.get("location") ?? "");
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("s1");
  });

  it("accepts each page's form once", async () => {
    const { body } = await get(authorizeUrl());
    const form = parseForms(body).find((f) => f.user === ADA_ID);
    const first = await submitForm(idp.url, form?.fields ?? {});
    expect(first.status).toBe(302);
    const second = await submitForm(idp.url, form?.fields ?? {});
    expect(second.status).toBe(400);
    expect(await second.text()).toContain("expired or was already used");
  });

  it("refuses a tampered choice (a user into an organization they are not in)", async () => {
    const { body } = await get(authorizeUrl());
    const form = parseForms(body).find((f) => f.user === ADA_ID && f.organization === ACME_ID);
    const res = await submitForm(idp.url, { ...form?.fields, organization_id: GLOBEX_ID });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });

  it("refuses an unknown or missing request id", async () => {
    const res = await submitForm(idp.url, { request_id: "nope", user_id: ADA_ID, organization_id: ACME_ID });
    expect(res.status).toBe(400);
  });
});
