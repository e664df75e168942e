/**
 * @module
 * The people types every layer shares (spec: AppUser, OrganizationMembership,
 * IdentityUser): the auth module creates them, the session objects store their
 * memberships, consumers receive them over RPC. Types only.
 */

export interface OrganizationMembership {
  organizationId: string;
  organizationSlug: string;
  role: string;
}

/** The signed-in user as the application sees it. */
export interface AppUser {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  /** The organization the session was opened for, if any. */
  organizationId?: string;
  memberships: OrganizationMembership[];
}

/**
 * The user record an identity client returns after login, passed to
 * `SessionManager.createSession`. `providerSessionId` is the provider's own
 * session id (WorkOS: the access token's `sid` claim), kept so logout and
 * revocation can end the provider session too.
 */
export interface IdentityUser {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  memberships: OrganizationMembership[];
  providerSessionId?: string;
}
