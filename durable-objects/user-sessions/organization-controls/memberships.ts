/**
 * @module
 * Applies what the identity provider said about a user's organizations to one
 * session's membership list. Pure: no storage, no clock. It never invents a
 * slug: a membership it cannot name is left out (fail safe) rather than guessed.
 */

export interface Membership {
  organizationId: string;
  organizationSlug: string;
  role: string;
}

/** The provider's latest word on one organization (`provider_memberships` row). */
export interface MembershipOverride {
  organizationId: string;
  /** null: unknown; keep the slug the session already has. */
  organizationSlug: string | null;
  /** null: not an active member any more (the membership is removed). */
  role: string | null;
}

export interface AppliedMemberships {
  memberships: Membership[];
  changed: boolean;
  /** Organizations that could not be added because no slug is known for them. */
  unnamed: string[];
}

export function applyOverrides(
  current: readonly Membership[],
  overrides: readonly MembershipOverride[],
): AppliedMemberships {
  const next = current.map((m) => ({ ...m }));
  const unnamed: string[] = [];
  for (const o of overrides) {
    const index = next.findIndex((m) => m.organizationId === o.organizationId);
    if (o.role === null) {
      if (index >= 0) next.splice(index, 1);
      continue;
    }
    const slug = o.organizationSlug ?? next[index]?.organizationSlug ?? null;
    if (slug === null) {
      unnamed.push(o.organizationId);
      continue;
    }
    const membership = { organizationId: o.organizationId, organizationSlug: slug, role: o.role };
    if (index >= 0) next[index] = membership;
    else next.push(membership);
  }
  return { memberships: next, changed: !sameMemberships(current, next), unnamed };
}

function sameMemberships(a: readonly Membership[], b: readonly Membership[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (m, i) =>
        m.organizationId === b[i]?.organizationId &&
        m.organizationSlug === b[i]?.organizationSlug &&
        m.role === b[i]?.role,
    )
  );
}
