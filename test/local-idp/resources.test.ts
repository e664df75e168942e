// The resource endpoints Gatehouse reads after a login, through the real SDK: organization
// memberships (filters, pagination), organizations (by id and external id = slug), users, and the
// API-key check every one of them makes.
import { NotFoundException, UnauthorizedException, UnprocessableEntityException } from "@workos-inc/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACME_ID, ADA_ID, ALAN_ID, GLOBEX_ID, GRACE_ID, type LocalIdp } from "../../scripts/local-idp/index.ts";
import { API_KEY, CLIENT_ID, sdk, startTestIdp } from "./helpers.ts";

let idp: LocalIdp;
beforeAll(async () => {
  idp = await startTestIdp();
});
afterAll(() => idp.close());

describe("listOrganizationMemberships", () => {
  it("lists a user's memberships with organization name, role slug and status", async () => {
    const list = await sdk(idp).userManagement.listOrganizationMemberships({ userId: GRACE_ID });
    expect(list.data).toHaveLength(2);
    const byOrg = Object.fromEntries(list.data.map((m) => [m.organizationId, m]));
    expect(byOrg[ACME_ID]).toMatchObject({
      object: "organization_membership",
      userId: GRACE_ID,
      organizationName: "Acme",
      role: { slug: "member" },
      status: "active",
    });
    expect(byOrg[GLOBEX_ID]).toMatchObject({ organizationName: "Globex", role: { slug: "admin" } });
    expect(byOrg[ACME_ID]?.id).toMatch(/^om_/);
    expect(byOrg[ACME_ID]?.createdAt).toBe("2024-01-15T09:00:00.000Z");
    expect(list.listMetadata).toEqual({ before: null, after: null });
  });

  it("filters by organization, and by status", async () => {
    const workos = sdk(idp);
    const one = await workos.userManagement.listOrganizationMemberships({
      userId: GRACE_ID,
      organizationId: GLOBEX_ID,
    });
    expect(one.data.map((m) => m.organizationId)).toEqual([GLOBEX_ID]);
    const acme = await workos.userManagement.listOrganizationMemberships({ organizationId: ACME_ID });
    expect(acme.data.map((m) => m.userId).sort()).toEqual([ADA_ID, ALAN_ID, GRACE_ID].sort());
    const inactive = await workos.userManagement.listOrganizationMemberships({
      userId: ADA_ID,
      statuses: ["inactive"],
    });
    expect(inactive.data).toEqual([]);
  });

  it("pages with list_metadata cursors, and autoPagination gathers every page", async () => {
    const workos = sdk(idp);
    const first = await workos.userManagement.listOrganizationMemberships({ organizationId: ACME_ID, limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.listMetadata.after).toBe(first.data[1]?.id);
    const second = await workos.userManagement.listOrganizationMemberships({
      organizationId: ACME_ID,
      limit: 2,
      after: first.listMetadata.after ?? undefined,
    });
    expect(second.data).toHaveLength(1);
    expect(second.listMetadata.after).toBeNull();
    expect(second.listMetadata.before).toBe(second.data[0]?.id);
    const all = await (
      await workos.userManagement.listOrganizationMemberships({ organizationId: ACME_ID })
    ).autoPagination();
    expect(new Set(all.map((m) => m.id)).size).toBe(3);
  });

  it("answers 422 without a user or organization filter", async () => {
    const res = await fetch(`${idp.url}/user_management/organization_memberships`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(res.status).toBe(422);
    const err = await sdk(idp)
      .userManagement.listOrganizationMemberships({ userId: ADA_ID, limit: 1000 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnprocessableEntityException);
  });
});

describe("organizations and users", () => {
  it("returns an organization whose external_id is its slug", async () => {
    const org = await sdk(idp).organizations.getOrganization(ACME_ID);
    expect(org).toMatchObject({
      object: "organization",
      id: ACME_ID,
      name: "Acme",
      externalId: "acme",
      metadata: {},
      allowProfilesOutsideOrganization: false,
    });
    expect(org.domains[0]).toMatchObject({ domain: "acme.test", organizationId: ACME_ID, state: "verified" });
    expect(org.createdAt).toBe("2024-01-15T09:00:00.000Z");
  });

  it("finds an organization by external id (slug)", async () => {
    const org = await sdk(idp).organizations.getOrganizationByExternalId("globex");
    expect(org.id).toBe(GLOBEX_ID);
  });

  it("returns a user, and 404 for an unknown one", async () => {
    const workos = sdk(idp);
    const user = await workos.userManagement.getUser(ADA_ID);
    expect(user).toMatchObject({
      object: "user",
      id: ADA_ID,
      email: "ada@acme.test",
      emailVerified: true,
      firstName: "Ada",
      lastName: "Lovelace",
      name: "Ada Lovelace",
    });
    await expect(workos.userManagement.getUser("user_unknown")).rejects.toBeInstanceOf(NotFoundException);
    await expect(workos.organizations.getOrganization("org_unknown")).rejects.toBeInstanceOf(NotFoundException);
  });

  it("refuses every resource call made with a wrong API key", async () => {
    const impostor = sdk(idp, { apiKey: "sk_test_wrong" });
    await expect(impostor.userManagement.getUser(ADA_ID)).rejects.toBeInstanceOf(UnauthorizedException);
    await expect(impostor.organizations.getOrganization(ACME_ID)).rejects.toBeInstanceOf(UnauthorizedException);
    await expect(impostor.userManagement.listOrganizationMemberships({ userId: ADA_ID })).rejects.toBeInstanceOf(
      UnauthorizedException,
    );
    await expect(impostor.userManagement.revokeSession({ sessionId: "session_x" })).rejects.toBeInstanceOf(
      UnauthorizedException,
    );
  });
});

describe("JWKS", () => {
  it("publishes one RS256 signing key at the SDK's JWKS URL, and 404 for another client", async () => {
    const res = await fetch(sdk(idp).userManagement.getJwksUrl(CLIENT_ID));
    const { keys } = (await res.json()) as { keys: Array<Record<string, unknown>> };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig" });
    expect(keys[0]).not.toHaveProperty("d");
    expect((await fetch(`${idp.url}/sso/jwks/client_other`)).status).toBe(404);
  });
});
