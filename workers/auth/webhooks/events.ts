/**
 * @module
 * Reduces a verified provider event (as the WorkOS SDK deserialized it) to the
 * `ProviderEvent` the user's session object applies, and the user it belongs
 * to. A pure validator with a tagged result: a known type with missing or
 * ill-formed fields is refused, an unknown type is "ignored", nothing throws.
 */
import type { MembershipEventType, ProviderEvent } from "../../../durable-objects/user-sessions";
import { isUserId } from "../ids";

export const HANDLED_EVENTS = [
  "session.revoked",
  "user.deleted",
  "organization_membership.created",
  "organization_membership.updated",
  "organization_membership.deleted",
] as const;

export type ParsedEvent =
  | {
      kind: "handled";
      userId: string;
      event: ProviderEvent;
      /** The organization slug must be looked up before applying (a membership that grants a role). */
      needsSlug: boolean;
    }
  | { kind: "ignored"; type: string };

export type ParseResult = { ok: true; value: ParsedEvent } | { ok: false; reason: string };

/** Provider object ids (`event_01…`, `session_01…`, `org_01…`) and role slugs. */
const OBJECT_ID = /^[A-Za-z0-9_-]{1,128}$/;
const ROLE_SLUG = /^[A-Za-z0-9_.:-]{1,64}$/;
const MEMBERSHIP_EVENTS: ReadonlySet<string> = new Set<MembershipEventType>([
  "organization_membership.created",
  "organization_membership.updated",
  "organization_membership.deleted",
]);

type Fields = Record<string, unknown>;

const isObject = (v: unknown): v is Fields => typeof v === "object" && v !== null && !Array.isArray(v);
const fail = (reason: string): ParseResult => ({ ok: false, reason });

export function parseProviderEvent(raw: unknown): ParseResult {
  if (!isObject(raw)) return fail("the body is not an event object");
  const { id, event: type, createdAt, data } = raw;
  if (typeof type !== "string" || type.length === 0 || type.length > 128) return fail("event type missing");
  if (!(HANDLED_EVENTS as readonly string[]).includes(type)) return { ok: true, value: { kind: "ignored", type } };
  if (typeof id !== "string" || !OBJECT_ID.test(id)) return fail("event id missing or malformed");
  const occurredAt = typeof createdAt === "string" ? Date.parse(createdAt) : Number.NaN;
  if (!Number.isFinite(occurredAt)) return fail("created_at missing or not a date");
  if (!isObject(data)) return fail("data missing");

  if (type === "session.revoked") {
    if (typeof data.id !== "string" || !OBJECT_ID.test(data.id)) return fail("session id missing");
    if (!isUserId(data.userId)) return fail("user_id missing");
    return handled(data.userId, { id, type, occurredAt, providerSessionId: data.id }, false);
  }
  if (type === "user.deleted") {
    if (!isUserId(data.id)) return fail("user id missing");
    return handled(data.id, { id, type, occurredAt }, false);
  }
  if (!MEMBERSHIP_EVENTS.has(type)) return fail("unexpected event type");
  const membershipType = type as MembershipEventType;
  if (!isUserId(data.userId)) return fail("user_id missing");
  if (typeof data.organizationId !== "string" || !OBJECT_ID.test(data.organizationId)) {
    return fail("organization_id missing");
  }
  if (typeof data.status !== "string") return fail("status missing");
  const active = membershipType !== "organization_membership.deleted" && data.status === "active";
  const slug = isObject(data.role) ? data.role.slug : undefined;
  if (active && (typeof slug !== "string" || !ROLE_SLUG.test(slug))) return fail("role slug missing");
  const role = active ? (slug as string) : null;
  return handled(
    data.userId,
    {
      id,
      type: membershipType,
      occurredAt,
      organizationId: data.organizationId,
      organizationSlug: null,
      role,
    },
    role !== null,
  );
}

function handled(userId: string, event: ProviderEvent, needsSlug: boolean): ParseResult {
  return { ok: true, value: { kind: "handled", userId, event, needsSlug } };
}
