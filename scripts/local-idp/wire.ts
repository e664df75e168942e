/**
 * The WorkOS wire format (snake_case JSON) of the objects the local identity provider serves:
 * users, organizations, organization memberships and cursor-paginated lists, exactly as the
 * `@workos-inc/node` v11 deserializers read them. Pure mapping: never reads or changes state.
 */
import { LocalIdpError } from "./errors.ts";
import type { MembershipRecord, OrganizationRecord, ProviderSession, UserRecord } from "./store.ts";

export function userJson(user: UserRecord): Record<string, unknown> {
  return {
    object: "user",
    id: user.id,
    email: user.email,
    email_verified: true,
    first_name: user.firstName,
    last_name: user.lastName,
    name: `${user.firstName} ${user.lastName}`,
    profile_picture_url: null,
    last_sign_in_at: user.lastSignInAt,
    locale: null,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
    external_id: null,
    metadata: {},
  };
}

export function organizationJson(org: OrganizationRecord): Record<string, unknown> {
  return {
    object: "organization",
    id: org.id,
    name: org.name,
    allow_profiles_outside_organization: false,
    domains: [
      {
        object: "organization_domain",
        id: org.domainId,
        domain: org.domain,
        organization_id: org.id,
        state: "verified",
        verification_strategy: "manual",
        created_at: org.createdAt,
        updated_at: org.createdAt,
      },
    ],
    created_at: org.createdAt,
    updated_at: org.createdAt,
    external_id: org.externalId,
    metadata: {},
  };
}

export function membershipJson(m: MembershipRecord, org: OrganizationRecord | null): Record<string, unknown> {
  return {
    object: "organization_membership",
    id: m.id,
    user_id: m.userId,
    organization_id: m.organizationId,
    organization_name: org?.name ?? "",
    role: { slug: m.role },
    roles: [{ slug: m.role }],
    status: m.status,
    directory_managed: false,
    custom_attributes: {},
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

/** A provider session as WorkOS events carry it (`session.created`, `session.revoked`). */
export function providerSessionJson(s: ProviderSession): Record<string, unknown> {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    object: "session",
    id: s.id,
    user_id: s.userId,
    organization_id: s.organizationId,
    ip_address: null,
    user_agent: null,
    ...(s.impersonator !== null && { impersonator: { ...s.impersonator } }),
    auth_method: s.impersonator === null ? "password" : "impersonation",
    status: s.endedAt === null ? "active" : "revoked",
    expires_at: iso(s.createdAt + 30 * 24 * 3600 * 1000),
    ended_at: s.endedAt === null ? null : iso(s.endedAt),
    created_at: iso(s.createdAt),
    updated_at: iso(s.endedAt ?? s.createdAt),
  };
}

/** The body of one webhook delivery: `{ id, event, data, created_at }`. */
export function eventJson(id: string, event: string, data: Record<string, unknown>, createdAt: string) {
  return { id, event, data, created_at: createdAt };
}

export interface PageParams {
  limit: number;
  before: string | null;
  after: string | null;
  order: "asc" | "desc";
}

/** Reads WorkOS list parameters (`limit` 1–100, default 10; `order` asc|desc, default desc). */
export function parsePageParams(query: URLSearchParams): PageParams {
  const rawLimit = query.get("limit");
  const limit = rawLimit === null ? 10 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new LocalIdpError("invalid_request_parameters", 422, "limit must be an integer from 1 to 100");
  }
  const order = query.get("order") ?? "desc";
  if (order !== "asc" && order !== "desc") {
    throw new LocalIdpError("invalid_request_parameters", 422, "order must be asc or desc");
  }
  return { limit, before: query.get("before"), after: query.get("after"), order };
}

/** One page of `items` (ordered by created_at, then id) with WorkOS `list_metadata` cursors. */
export function listJson<T extends { id: string; createdAt: string }>(
  items: readonly T[],
  page: PageParams,
  toJson: (item: T) => Record<string, unknown>,
): Record<string, unknown> {
  const sorted = [...items].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  if (page.order === "desc") sorted.reverse();
  let start = 0;
  let end = sorted.length;
  if (page.after !== null) {
    start = sorted.findIndex((i) => i.id === page.after) + 1;
    end = Math.min(sorted.length, start + page.limit);
  } else if (page.before !== null) {
    end = Math.max(
      0,
      sorted.findIndex((i) => i.id === page.before),
    );
    start = Math.max(0, end - page.limit);
  } else {
    end = Math.min(sorted.length, page.limit);
  }
  const data = sorted.slice(start, end);
  return {
    object: "list",
    data: data.map(toJson),
    list_metadata: {
      before: start > 0 && data.length > 0 ? data[0]?.id : null,
      after: end < sorted.length && data.length > 0 ? data[data.length - 1]?.id : null,
    },
  };
}
