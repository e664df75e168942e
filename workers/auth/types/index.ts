/**
 * @module
 * The data types of the authentication module (spec: AppUser,
 * OrganizationMembership, IdentityUser, OrgResolutionStrategy). The people
 * types live in the client SDK's protocol module, shared by every layer.
 */
export type { AppUser, IdentityUser, OrganizationMembership } from "../../../client-sdk/protocol/users";

export type OrgResolutionStrategy = "subdomain" | "path-prefix" | "header";
