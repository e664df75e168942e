/**
 * The demo directory of the local identity provider: users, organizations, memberships and the
 * permissions each role carries. Ids are stable so tests and docs can name them.
 * Plain data only: no logic, no I/O. The store copies it, so nothing ever mutates these objects.
 */

/** A person who can sign in. */
export interface DemoUser {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  createdAt: string;
}

/** An organization; `externalId` is the slug Gatehouse uses as `organizationSlug`. */
export interface DemoOrganization {
  id: string;
  name: string;
  externalId: string;
  domain: string;
  domainId: string;
  createdAt: string;
}

/** A user's membership in an organization with one role slug. */
export interface DemoMembership {
  id: string;
  userId: string;
  organizationId: string;
  role: string;
  createdAt: string;
}

export const ADA_ID = "user_01ADALOVELACE0000000000000";
export const GRACE_ID = "user_01GRACEHOPPER0000000000000";
export const ALAN_ID = "user_01ALANTURING00000000000000";
export const MARGARET_ID = "user_01MARGARETHAMILTON00000000";
export const ACME_ID = "org_01ACME00000000000000000000";
export const GLOBEX_ID = "org_01GLOBEX000000000000000000";

const CREATED = "2024-01-15T09:00:00.000Z";

export const DEMO_USERS: readonly DemoUser[] = [
  { id: ADA_ID, email: "ada@acme.test", firstName: "Ada", lastName: "Lovelace", createdAt: CREATED },
  { id: GRACE_ID, email: "grace@globex.test", firstName: "Grace", lastName: "Hopper", createdAt: CREATED },
  { id: ALAN_ID, email: "alan@acme.test", firstName: "Alan", lastName: "Turing", createdAt: CREATED },
  // No membership at all: the "signed in, but in no organization" case.
  { id: MARGARET_ID, email: "margaret@example.test", firstName: "Margaret", lastName: "Hamilton", createdAt: CREATED },
];

export const DEMO_ORGANIZATIONS: readonly DemoOrganization[] = [
  {
    id: ACME_ID,
    name: "Acme",
    externalId: "acme",
    domain: "acme.test",
    domainId: "org_domain_01ACME00000000000000000000",
    createdAt: CREATED,
  },
  {
    id: GLOBEX_ID,
    name: "Globex",
    externalId: "globex",
    domain: "globex.test",
    domainId: "org_domain_01GLOBEX000000000000000000",
    createdAt: CREATED,
  },
];

export const DEMO_MEMBERSHIPS: readonly DemoMembership[] = [
  { id: "om_01ADAACME00000000000000000", userId: ADA_ID, organizationId: ACME_ID, role: "admin", createdAt: CREATED },
  {
    id: "om_01GRACEACME000000000000000",
    userId: GRACE_ID,
    organizationId: ACME_ID,
    role: "member",
    createdAt: CREATED,
  },
  {
    id: "om_01GRACEGLOBEX0000000000000",
    userId: GRACE_ID,
    organizationId: GLOBEX_ID,
    role: "admin",
    createdAt: "2024-02-01T09:00:00.000Z",
  },
  { id: "om_01ALANACME0000000000000000", userId: ALAN_ID, organizationId: ACME_ID, role: "member", createdAt: CREATED },
];

/** Permissions carried in the access token's `permissions` claim, by role slug. */
export const ROLE_PERMISSIONS: Readonly<Record<string, readonly string[]>> = {
  admin: ["members:manage", "settings:write", "content:write", "content:read"],
  member: ["content:write", "content:read"],
};
