/**
 * @module
 * What a directory deactivation (WorkOS Directory Sync, `dsync.user.*`) may end in one user's
 * object. A directory belongs to one organization, and the email that matched this user is only
 * that directory's claim (the email directory is shared by every organization), so it acts only
 * where that organization already had this person, and ends only what is in its name. Reads
 * storage, synchronously; never revokes, and never counts a membership that is not active.
 */

/**
 * "member": the person is an active member of the organization here; `sessionIds` are the sessions
 * in its name (possibly none). "not_member": nothing ties the person to it here. "stale": a membership
 * event newer than the deactivation says the person is an active member (they were taken back).
 */
export type DeactivationScope =
  | { verdict: "member"; sessionIds: string[] }
  | { verdict: "not_member" }
  | { verdict: "stale" };

/**
 * A session is in the organization's name when it was signed in to it (`organization_id`), or
 * signed in to no organization while its memberships (`member_of`) name it. A session signed in to
 * another organization is that organization's: this deactivation never ends it.
 */
const IN_ITS_NAME = `(organization_id = ?1
  OR (organization_id IS NULL AND EXISTS (SELECT 1 FROM json_each(sessions.member_of) WHERE value = ?1)))`;

/**
 * The person is a member when a live session was signed in to the organization or carries its
 * membership, or the provider's latest membership event for it (`provider_memberships`, kept four
 * days) granted a role. A row without a role never counts: a membership the provider ended, and a
 * pending one (WorkOS creates one, invitation unaccepted, for any address a directory lists outside
 * the organization's verified domains), look the same there.
 */
export function deactivationScope(
  sql: SqlStorage,
  organizationId: unknown,
  occurredAt: number,
  now: number,
): DeactivationScope {
  // An event without an organization (an older caller) can name no one's membership: it acts on nothing.
  if (typeof organizationId !== "string" || organizationId.length === 0) return { verdict: "not_member" };
  const membership = sql
    .exec<{ role: string | null; event_at: number }>(
      "SELECT role, event_at FROM provider_memberships WHERE organization_id = ?",
      organizationId,
    )
    .toArray()[0];
  const activeMembership = membership !== undefined && membership.role !== null;
  if (activeMembership && Number(membership.event_at) > occurredAt) return { verdict: "stale" };
  // A session still queued for this organization's rewrite after the provider ended (or left pending)
  // the membership carries it only until the rewrite runs: the provider's word wins, it does not count.
  const ended = membership !== undefined && membership.role === null ? 1 : 0;
  const carried =
    sql
      .exec(
        `SELECT 1 FROM sessions WHERE expires_at > ?2
           AND (organization_id = ?1 OR EXISTS (SELECT 1 FROM json_each(sessions.member_of) WHERE value = ?1))
           AND NOT (?3 = 1 AND EXISTS (SELECT 1 FROM kv_rewrites
             WHERE kv_rewrites.session_id = sessions.id AND kv_rewrites.organization_id = ?1))
         LIMIT 1`,
        organizationId,
        now,
        ended,
      )
      .toArray().length > 0;
  if (!activeMembership && !carried) return { verdict: "not_member" };
  const sessionIds = sql
    .exec<{ id: string }>(`SELECT id FROM sessions WHERE ${IN_ITS_NAME}`, organizationId)
    .toArray()
    .map((r) => r.id);
  return { verdict: "member", sessionIds };
}
