/**
 * Issue 14 finding 1: a session must never name an organization its user does not belong to.
 * Replayed against the deployed auth worker with the real WorkOS SDK and the local provider:
 * `/auth/login?organization_id=<foreign org>` for a person the provider signs in without an
 * organization, and a flow cookie whose organization or return path was swapped by the browser.
 */
import { describe, expect, it } from "vitest";
import { base64url, fromBase64url } from "../../workers/auth/crypto";
import { callback, me, providerCode, startLogin } from "./helpers/world";

/** scripts/local-idp/demo-data.ts: Margaret belongs to no organization, Alan to Acme only. */
const MARGARET = "user_01MARGARETHAMILTON00000000";
const ALAN = "user_01ALANTURING00000000000000";
const ACME = "org_01ACME00000000000000000000";
const GLOBEX = "org_01GLOBEX000000000000000000";

async function codeFor(authorize: URL, userId: string, org: string | null = null): Promise<string> {
  const res = await providerCode(authorize, userId, org);
  expect(res.status).toBe(201);
  return ((await res.json()) as { code: string }).code;
}

/** The flow cookie of a jar (there is one per sign-in). */
function flowCookie(jar: Record<string, string>): [string, string] {
  const entry = Object.entries(jar).find(([name]) => name.includes("gh_login_"));
  if (!entry) throw new Error("no flow cookie");
  return entry;
}

/** Rewrites the flow cookie's JSON payload, keeping (now wrong) or dropping its signature. */
function tamper(jar: Record<string, string>, change: (flow: Record<string, unknown>) => void, keepSig = true): void {
  const [name, value] = flowCookie(jar);
  const [payload, signature] = value.split(".");
  const flow = JSON.parse(new TextDecoder().decode(fromBase64url(payload!)!)) as Record<string, unknown>;
  change(flow);
  const forged = base64url(new TextEncoder().encode(JSON.stringify(flow)));
  jar[name] = keepSig ? `${forged}.${signature}` : forged;
}

describe("finding 1: the tenant of a session", () => {
  it("refuses a requested organization the person is not a member of (provider answer without one)", async () => {
    const { jar, authorize } = await startLogin(`organization_id=${ACME}`);
    const res = await callback(authorize, await codeFor(authorize, MARGARET), jar);
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie().join("\n")).not.toMatch(/gh_session=[^;]/);
    const body = await res.text();
    expect(body).toContain("organization_not_allowed");
    expect((await me(jar)).status).toBe(401);
  });

  it("refuses it for a member of another organization too (Alan of Acme asks for Globex)", async () => {
    const { jar, authorize } = await startLogin(`organization_id=${GLOBEX}`);
    // The provider signs Alan in to his own organization: the session is Acme's, never Globex's.
    const res = await callback(authorize, await codeFor(authorize, ALAN), jar);
    expect(res.status).toBe(302);
    const body = (await (await me(jar)).json()) as { user: { organizationId?: string } };
    expect(body.user.organizationId).toBe(ACME);
  });

  it("keeps a requested organization the person belongs to", async () => {
    const { jar, authorize } = await startLogin(`organization_id=${ACME}`);
    const res = await callback(authorize, await codeFor(authorize, ALAN, ACME), jar);
    expect(res.status).toBe(302);
    const body = (await (await me(jar)).json()) as { user: { organizationId?: string } };
    expect(body.user.organizationId).toBe(ACME);
  });

  it("signs in a person without an organization when none was asked for", async () => {
    const { jar, authorize } = await startLogin();
    expect((await callback(authorize, await codeFor(authorize, MARGARET), jar)).status).toBe(302);
    const body = (await (await me(jar)).json()) as { user: { organizationId?: string; memberships: unknown[] } };
    expect(body.user.organizationId).toBeUndefined();
    expect(body.user.memberships).toEqual([]);
  });

  it.each([
    ["an organization written into the flow cookie", (f: Record<string, unknown>) => (f.organizationId = ACME)],
    ["a return path swapped in the flow cookie", (f: Record<string, unknown>) => (f.returnTo = "/admin")],
    ["a PKCE verifier swapped in the flow cookie", (f: Record<string, unknown>) => (f.codeVerifier = "x".repeat(43))],
  ])("refuses %s (signature no longer matches)", async (_label, change) => {
    const { jar, authorize } = await startLogin();
    tamper(jar, change);
    const res = await callback(authorize, await codeFor(authorize, MARGARET), jar);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("invalid_state");
    expect((await me(jar)).status).toBe(401);
  });

  it("refuses an unsigned flow cookie (the old format)", async () => {
    const { jar, authorize } = await startLogin();
    tamper(jar, (f) => (f.organizationId = ACME), false);
    const res = await callback(authorize, await codeFor(authorize, MARGARET), jar);
    expect(res.status).toBe(400);
    expect((await me(jar)).status).toBe(401);
  });

  it("refuses one flow's signed cookie presented for another flow's state", async () => {
    const first = await startLogin();
    const second = await startLogin();
    const [, firstValue] = flowCookie(first.jar);
    const [secondName] = flowCookie(second.jar);
    const jar = { [secondName]: firstValue };
    const res = await callback(second.authorize, await codeFor(second.authorize, MARGARET), jar);
    expect(res.status).toBe(400);
  });
});
