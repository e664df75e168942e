/**
 * @module
 * `RoleMiddleware(...roles)` (spec): the user's role in the current
 * organization must be one of `roles`, else 403. The current organization is
 * the one `OrgResolver` found (AuthMiddleware's `orgResolver`), else the
 * session's `organizationId`. Runs after `AuthMiddleware`; without a user it
 * answers 403 too, never granting by default.
 */
import type { Middleware, Next } from "../../../../client-sdk/core/middleware";
import { errorPage } from "../../pages";
import { organizationLinks } from "../../pages/error-links";
import type { AppUser, OrganizationMembership } from "../../types";
import { currentOrganizationSlug, currentUser } from "../context";

export class RoleMiddleware implements Middleware {
  readonly roles: readonly string[];

  constructor(...roles: string[]) {
    if (roles.length === 0 || roles.some((r) => typeof r !== "string" || r.length === 0)) {
      throw new TypeError("RoleMiddleware needs at least one non-empty role");
    }
    this.roles = roles;
  }

  async handle(request: Request, next: Next): Promise<Response> {
    const user = currentUser(request);
    if (!user)
      return errorPage(request, 403, "forbidden", "You need to be signed in with an allowed role to open this page.");
    const membership = membershipInCurrentOrganization(user, currentOrganizationSlug(request));
    if (!membership || !this.roles.includes(membership.role)) {
      // Not a dead end: a sign-in into each of the person's other organizations, or a sign-out.
      return errorPage(request, 403, "forbidden", "Your role in this organization does not allow this.", {
        links: organizationLinks(user.memberships, { exceptId: membership?.organizationId ?? null }),
      });
    }
    return next();
  }
}

/** The user's role in the organization `slug` (or, without one, the session's organization); null if none. */
export function roleInCurrentOrganization(user: AppUser, slug: string | null): string | null {
  return membershipInCurrentOrganization(user, slug)?.role ?? null;
}

function membershipInCurrentOrganization(user: AppUser, slug: string | null): OrganizationMembership | undefined {
  return slug
    ? user.memberships.find((m) => m.organizationSlug === slug)
    : user.organizationId
      ? user.memberships.find((m) => m.organizationId === user.organizationId)
      : undefined;
}
