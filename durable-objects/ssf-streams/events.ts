/**
 * @module
 * Our timeline events as Security Event Tokens' claims (RFC 8417 §2.2, SSF 1.0 §4, CAEP 1.0 §3,
 * RISC 1.0 §2), pure: `session.revoked` and `session.signed_out` → one CAEP `session-revoked` per
 * ended session (a kill switch too: one per session, each naming it); `account.ended` → RISC
 * `account-purged` (deleted at the identity provider) or `account-disabled` (deactivated in their
 * organization's directory: that organization as `tenant`), whether or not a session was live;
 * `membership.changed` → CAEP `token-claims-change`. Every other type maps to nothing. The subject
 * is `sub_id` at the top level (SSF 1.0 §4; RFC 9493 `complex`): the user as `iss_sub` under this
 * transmitter's issuer, the session as `opaque`, the organization as `tenant`. Nothing here signs.
 */

import type { RevocationActor, SecurityEvent } from "../../client-sdk/protocol/security-record";
import { type SecurityEventToken, SSF_EVENTS, type SubjectIdentifier } from "../../client-sdk/protocol/shared-signals";

/** CAEP 1.0 §2 `initiating_entity`. */
export type InitiatingEntity = "admin" | "user" | "policy" | "system";

export interface SetContext {
  /** `iss`: this transmitter's issuer (SSF 1.0 §6.1: identical to the metadata's `issuer`). */
  issuer: string;
  /** `aud`: the receiver(s). */
  audience: string | string[];
  /** `iat`, seconds. Default now. */
  now?: number;
  /** A fresh `jti` per SET (RFC 8417 §2.2: unique). Default `crypto.randomUUID()`. */
  jti?: () => string;
}

/** Who started it, in CAEP's four words: a provider or the kill switch is an administrator's act upstream. */
export function initiatingEntity(actor: RevocationActor | null, type: SecurityEvent["type"]): InitiatingEntity {
  switch (actor?.kind) {
    case "user":
      return "user";
    case "admin":
    case "kill_switch":
    case "provider":
      return "admin";
    case "policy":
      return "policy";
    case "system":
      return "system";
    default:
      return type === "session.signed_out" ? "user" : "system";
  }
}

/** A fixed English reason for the receiver's operators (CAEP 1.0 §2 `reason_admin`): no labels or ids. */
const REASONS: Record<InitiatingEntity, string> = {
  user: "The person ended the session",
  admin: "An administrator ended the session",
  policy: "A session policy ended the session",
  system: "The session was ended by the system",
};

/** The account-level RISC event a revocation's reason adds (RISC 1.0 §2.2 account-disabled, §2.3 account-purged). */
const ACCOUNT_EVENTS: Readonly<Record<string, { type: string; body: Record<string, unknown> }>> = {
  user_deleted: { type: SSF_EVENTS.accountPurged, body: {} },
  user_deactivated: { type: SSF_EVENTS.accountDisabled, body: {} },
};

/** The event types `eventToSets` can produce, in the order a stream lists them (`events_supported`). */
export const SUPPORTED_EVENTS: readonly string[] = [
  SSF_EVENTS.sessionRevoked,
  SSF_EVENTS.tokenClaimsChange,
  SSF_EVENTS.accountDisabled,
  SSF_EVENTS.accountPurged,
];

/** True for the timeline events that can become SETs (the user object queues only those for the streams). */
export function concernsStreams(event: Pick<SecurityEvent, "type">): boolean {
  return (
    event.type === "session.revoked" ||
    event.type === "session.signed_out" ||
    event.type === "membership.changed" ||
    event.type === "account.ended"
  );
}

/** The SET claims for one of our events: none, one, or one per ended session. */
export function eventToSets(event: SecurityEvent, context: SetContext): SecurityEventToken[] {
  const user: SubjectIdentifier = { format: "iss_sub", iss: context.issuer, sub: event.userId };
  const eventTimestamp = Math.floor(event.at / 1000);
  switch (event.type) {
    case "session.revoked":
    case "session.signed_out": {
      const ids = event.sessionIds?.length ? event.sessionIds : event.sessionId ? [event.sessionId] : [];
      const entity = initiatingEntity(event.actor, event.type);
      const body = {
        event_timestamp: eventTimestamp,
        initiating_entity: entity,
        reason_admin: { en: REASONS[entity] },
      };
      // No session named: the user's sessions as a whole (a complex subject with the user alone).
      const subjects: SubjectIdentifier[] = ids.length
        ? ids.map((id) => ({ format: "complex", user, session: { format: "opaque", id } }))
        : [{ format: "complex", user }];
      return subjects.map((subject) => envelope(context, subject, SSF_EVENTS.sessionRevoked, body));
    }
    case "account.ended": {
      const account = ACCOUNT_EVENTS[String(event.detail.reason)];
      if (!account) return [];
      // RISC 1.0 §2.2/§2.3: the account itself is the subject (no session); `account-purged` has no
      // members. A directory deactivation disabled it in one organization's name: that one as `tenant`.
      const tenant = event.detail.organizationId;
      const subject: SubjectIdentifier =
        typeof tenant === "string" && tenant !== ""
          ? { format: "complex", user, tenant: { format: "opaque", id: tenant } }
          : user;
      return [envelope(context, subject, account.type, account.body)];
    }
    case "membership.changed": {
      const organizationId = event.detail.organizationId;
      if (typeof organizationId !== "string" || organizationId === "") return [];
      const role = event.detail.role;
      const subject: SubjectIdentifier = { format: "complex", user, tenant: { format: "opaque", id: organizationId } };
      return [
        envelope(context, subject, SSF_EVENTS.tokenClaimsChange, {
          event_timestamp: eventTimestamp,
          initiating_entity: initiatingEntity(event.actor, event.type),
          // CAEP 1.0 §3.3: `claims` is REQUIRED, the claims' new values (a removed membership: no role).
          claims: {
            org_id: organizationId,
            role: typeof role === "string" && event.detail.change !== "deleted" ? role : null,
          },
        }),
      ];
    }
    default:
      return [];
  }
}

function envelope(
  context: SetContext,
  subject: SubjectIdentifier,
  type: string,
  body: Record<string, unknown>,
): SecurityEventToken {
  return {
    iss: context.issuer,
    aud: context.audience,
    iat: context.now ?? Math.floor(Date.now() / 1000),
    jti: (context.jti ?? (() => crypto.randomUUID()))(),
    sub_id: subject,
    events: { [type]: body },
  };
}
