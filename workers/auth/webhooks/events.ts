/**
 * @module
 * Reduces a verified provider event (as the WorkOS SDK deserialized it) to the
 * `ProviderEvent` the user's session object applies, and the user it belongs
 * to (or, for a directory user, the email to find them by). A pure validator
 * with a tagged result: a known type with missing or ill-formed fields is
 * refused, an unknown type is "ignored", nothing throws.
 */
import type {
  DirectoryUserEventType,
  MembershipEventType,
  ProviderEvent,
} from "../../../durable-objects/user-sessions";
import { isUserId } from "../ids";

export const HANDLED_EVENTS = [
  "session.revoked",
  "user.deleted",
  "organization_membership.created",
  "organization_membership.updated",
  "organization_membership.deleted",
  "dsync.user.updated",
  "dsync.user.deleted",
] as const;

export type ParsedEvent =
  | {
      kind: "handled";
      userId: string;
      event: ProviderEvent;
      /** The organization slug must be looked up before applying (a membership that grants a role). */
      needsSlug: boolean;
    }
  | {
      /**
       * About a directory user, who is not an AuthKit user: the route finds the person by this
       * (primary) email in the email directory before applying; nobody found → acknowledged, ignored.
       * The event carries the directory's organization: the person's object acts only if they are a member.
       */
      kind: "by_email";
      email: string;
      event: DirectoryUserEvent;
    }
  | {
      kind: "ignored";
      type: string;
      /** Set when an event of a handled type is dropped for a reason an operator should see. */
      reason?: "no_organization";
    };

/** A directory deactivation as the person's object applies it (with the directory's organization). */
export type DirectoryUserEvent = Extract<ProviderEvent, { type: DirectoryUserEventType }>;

export type ParseResult = { ok: true; value: ParsedEvent } | { ok: false; reason: string };

/** Provider object ids (`event_01…`, `session_01…`, `org_01…`) and role slugs. */
const OBJECT_ID = /^[A-Za-z0-9_-]{1,128}$/;
const ROLE_SLUG = /^[A-Za-z0-9_.:-]{1,64}$/;
/** The longest email address (RFC 5321's path limit), as the shared-signals receiver matches them. */
const MAX_EMAIL_LENGTH = 320;
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
  if (type === "dsync.user.updated" || type === "dsync.user.deleted") {
    return directoryUser({ id, type, occurredAt }, data);
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

/**
 * A directory user's event (WorkOS Directory Sync), read by documented fields only. The SDK's type
 * (`@workos-inc/node` 11: `DirectoryUser` in src/directory-sync/interfaces/directory-user.interface.ts,
 * shipped in lib/factory-*.d.mts) has `state: 'active' | 'inactive'`, `email: string | null`, the
 * primary email (there is no `emails` list any more), and `organizationId: string | null`, the
 * directory's organization (wire `organization_id`). `webhooks.constructEvent` builds `data` with
 * `deserializeDirectoryUser` (`dsync.user.deleted`) or `deserializeUpdatedEventDirectoryUser`
 * (`dsync.user.updated`, plus an untyped `previousAttributes`, never read), both in
 * src/directory-sync/serializers/directory-user.serializer.ts. `dsync.user.updated` deactivates only
 * at state `inactive`, any other state is ignored; `dsync.user.deleted` always does (the person left
 * the directory). A null email cannot be matched: ignored. The organization is what the user's
 * object checks membership in (an email alone is any organization's claim): a null one (a directory
 * attached to no organization) can be checked against nothing, so the event is ignored, with a reason.
 */
function directoryUser(
  event: { id: string; type: DirectoryUserEventType; occurredAt: number },
  data: Fields,
): ParseResult {
  const { state, email, organizationId } = data;
  const ignored: ParseResult = { ok: true, value: { kind: "ignored", type: event.type } };
  if (event.type === "dsync.user.updated") {
    if (typeof state !== "string") return fail("state missing");
    if (state !== "inactive") return ignored;
  }
  if (email === null) return ignored;
  if (typeof email !== "string" || email.trim().length === 0 || email.length > MAX_EMAIL_LENGTH) {
    return fail("email missing or malformed");
  }
  if (organizationId === null) {
    return { ok: true, value: { kind: "ignored", type: event.type, reason: "no_organization" } };
  }
  if (typeof organizationId !== "string" || !OBJECT_ID.test(organizationId)) return fail("organization_id missing");
  return { ok: true, value: { kind: "by_email", email, event: { ...event, organizationId } } };
}

function handled(userId: string, event: ProviderEvent, needsSlug: boolean): ParseResult {
  return { ok: true, value: { kind: "handled", userId, event, needsSlug } };
}
