/**
 * The directory changes a provider administrator makes, shared by the `/__local/` JSON controls
 * and the dashboard page: revoke a session, change a membership's role, add or remove a
 * membership, delete a user, arm or cancel an impersonation. Each validates its input, changes the store (which emits the
 * events the webhook sender delivers) and throws `LocalIdpError` for unknown ids or bad values.
 */
import type { IdpContext } from "./context.ts";
import { ROLE_PERMISSIONS } from "./demo-data.ts";
import { LocalIdpError } from "./errors.ts";
import type { MembershipRecord, PendingImpersonation, ProviderSession, UserRecord } from "./store.ts";

/** The roles this provider knows (those with permissions), e.g. `admin`, `member`. */
export const ROLES: readonly string[] = Object.keys(ROLE_PERMISSIONS);

function knownRole(role: string | null): string {
  if (role === null || !ROLES.includes(role)) {
    throw new LocalIdpError("invalid_request", 400, `role must be one of ${ROLES.join(", ")}`);
  }
  return role;
}

/** Ends a live provider session (emits `session.revoked`; a second call is a no-op). */
export function revokeProviderSession(ctx: IdpContext, sessionId: string): ProviderSession {
  const session = ctx.store.endSession(sessionId, "revoked");
  if (!session) throw new LocalIdpError("entity_not_found", 404, `Session not found: '${sessionId}'.`);
  return session;
}

/** Gives a membership another role (emits `organization_membership.updated`). */
export function changeRole(ctx: IdpContext, membershipId: string, role: string | null): MembershipRecord {
  const updated = ctx.store.setMembershipRole(membershipId, knownRole(role));
  if (!updated) throw new LocalIdpError("entity_not_found", 404, `Membership not found: '${membershipId}'.`);
  return updated;
}

export function addMembership(
  ctx: IdpContext,
  userId: string | null,
  organizationId: string | null,
  role: string | null,
): MembershipRecord {
  if (userId === null || organizationId === null) {
    throw new LocalIdpError("invalid_request", 400, "user_id and organization_id are required");
  }
  const added = ctx.store.addMembership(userId, organizationId, knownRole(role));
  if (added.ok) return added.value;
  if (added.reason === "already_member") {
    throw new LocalIdpError("invalid_request", 400, "That user already belongs to that organization");
  }
  throw new LocalIdpError(
    "entity_not_found",
    404,
    `Unknown ${added.reason === "unknown_user" ? "user" : "organization"}.`,
  );
}

export function removeMembership(ctx: IdpContext, membershipId: string): MembershipRecord {
  const removed = ctx.store.removeMembership(membershipId);
  if (!removed) throw new LocalIdpError("entity_not_found", 404, `Membership not found: '${membershipId}'.`);
  return removed;
}

/** Deletes a user, their memberships and sessions (emits `user.deleted`). */
export function deleteUser(ctx: IdpContext, userId: string): UserRecord {
  const deleted = ctx.store.deleteUser(userId);
  if (!deleted) throw new LocalIdpError("entity_not_found", 404, `User not found: '${userId}'.`);
  return deleted;
}

/** An email-shaped value (the impersonator is identified by email, as in WorkOS). */
const EMAIL = /^[^\s@<>"]+@[^\s@<>"]+$/;
const MAX_REASON = 500;

/**
 * Arms an impersonation: the next code for `userId` (into `organizationId` when given) signs in
 * with `impersonator: { email, reason }`. Replaces one already armed for that user.
 */
export function armImpersonation(
  ctx: IdpContext,
  input: { userId: string | null; email: string | null; reason: string | null; organizationId: string | null },
): PendingImpersonation {
  if (input.userId === null) throw new LocalIdpError("invalid_request", 400, "user_id is required");
  const email = input.email?.trim() ?? "";
  if (email.length > 254 || !EMAIL.test(email)) {
    throw new LocalIdpError("invalid_request", 400, "impersonator_email must be an email address");
  }
  const reason = input.reason?.trim() || null;
  if (reason !== null && reason.length > MAX_REASON) {
    throw new LocalIdpError("invalid_request", 400, `reason must be at most ${MAX_REASON} characters`);
  }
  const armed = ctx.store.armImpersonation(input.userId, { email, reason }, input.organizationId);
  if (armed.ok) return armed.value;
  if (armed.reason === "unknown_user") {
    throw new LocalIdpError("entity_not_found", 404, `User not found: '${input.userId}'.`);
  }
  throw new LocalIdpError("invalid_request", 400, "That user does not belong to that organization");
}

/** Disarms the impersonation armed for a user (404 when none is). */
export function cancelImpersonation(ctx: IdpContext, userId: string): PendingImpersonation {
  const cancelled = ctx.store.cancelImpersonation(userId);
  if (!cancelled) throw new LocalIdpError("entity_not_found", 404, `No impersonation armed for '${userId}'.`);
  return cancelled;
}
