/**
 * @module
 * Feature contract — security record: the user's timeline events, where a session signed in from,
 * who revoked what (receipts), known devices and event deliveries, as the session object keeps them
 * and every layer reads them. Types only; they travel over RPC, to the account pages, to the host's
 * queue or webhook.
 */

/** Coarse location of a request, as the edge reports it (`request.cf`); each part may be unknown. */
export interface SessionLocation {
  country: string | null;
  region: string | null;
  city: string | null;
  /** The Cloudflare data center (IATA code) that served the request. */
  colo: string | null;
}

/** Who ended a session. `label` names the admin token, the webhook's provider, or the policy. */
export interface RevocationActor {
  kind: "user" | "admin" | "provider" | "policy" | "kill_switch" | "system";
  label?: string;
}

/**
 * The kinds of timeline events. `session.device_bound`: a session's browser registered a device key
 * (DBSC, `protocol/device-binding.ts`), so its cookie alone no longer signs in.
 * `session.device_refresh_failed`: a refresh proof for a bound session was refused (`detail.reason`,
 * a `DeviceRefreshFailure`). `signal.received`: a verified Security Event Token about this person
 * arrived from an upstream transmitter (`detail`: `issuer` host, `event` type URI, `outcome` a
 * `SignalOutcome`); what it ended is its own `session.revoked`. `account.ended`: the identity
 * provider deleted the person (`detail.reason` `user_deleted`) or their organization's directory
 * deactivated them (`user_deactivated`, `detail.organizationId` that organization); recorded whether
 * or not a session was live here (what ended is its own `session.revoked`).
 */
export type SecurityEventType =
  | "session.signed_in"
  | "session.new_device"
  | "session.signed_out"
  | "session.revoked"
  | "session.refused"
  | "membership.changed"
  | "ratelimit.lockout"
  | "organization.sessions_ended"
  | "session.impersonated"
  | "session.device_bound"
  | "session.device_refresh_failed"
  | "signal.received"
  | "account.ended";

/**
 * What a received shared signal came to (issue 32): `revoked` sessions ended; `no_session` nothing
 * to end; `unknown_event` a type we do not act on; `verified` an SSF verification event;
 * `replayed` a copy of one already received (refused); `expired` and `wrong_audience` a SET its
 * transmitter did sign, refused for its `iat` window or its `aud` (nothing acted on).
 */
export type SignalOutcome =
  | "revoked"
  | "no_session"
  | "unknown_event"
  | "verified"
  | "replayed"
  | "expired"
  | "wrong_audience";
export const SIGNAL_OUTCOMES: readonly SignalOutcome[] = [
  "revoked",
  "no_session",
  "unknown_event",
  "verified",
  "replayed",
  "expired",
  "wrong_audience",
];

/** One event of a user's timeline. `id` is stable (an idempotency key for webhook receivers). */
export interface SecurityEvent {
  id: string;
  /** Position in the user's timeline: later events have larger numbers (the paging cursor). */
  seq: number;
  userId: string;
  type: SecurityEventType;
  /** When it happened, ms since the epoch. */
  at: number;
  sessionId: string | null;
  /** The device as a person reads it ("Firefox 140 on macOS"), when the event has one. */
  device: string | null;
  ip: string | null;
  location: SessionLocation | null;
  /** Who acted, for revocations and policy decisions. */
  actor: RevocationActor | null;
  /** Event-specific facts: the organization and role of a membership change, a receipt id, a limit. */
  detail: Readonly<Record<string, string | number | boolean | null>>;
  /**
   * Every session the event is about, when it ended or refused sessions (`session.revoked`,
   * `session.signed_out`, `session.refused`): all of a revocation's ids, however many. Absent on
   * other events and on events recorded before this field existed.
   */
  sessionIds?: string[];
}

/** One page of a timeline, newest first; `nextCursor` fetches the older ones (null: no more). */
export interface TimelinePage {
  events: SecurityEvent[];
  nextCursor: string | null;
}

/** A device/location pair the user signed in from within the retention window. */
export interface KnownDevice {
  device: string;
  location: SessionLocation | null;
  firstSeenAt: number;
  lastSeenAt: number;
  /** Live sessions on it now. */
  sessions: number;
}

/**
 * Where a user's security events are delivered: the host's Queue, its signed webhook, or a named
 * app's revocation receiver (`app:<name>`, the `apps` option: only the notices of ended sessions).
 */
/** `ssf`: the hand-off to the shared-signals streams object (it then delivers to each stream). */
export type SecurityEventDestination = "queue" | "webhook" | "ssf" | `app:${string}`;

/** How one delivery attempt went: `dropped` is a failure after the last retry. */
export type DeliveryOutcome = "delivered" | "failed" | "dropped";

/** The deliveries of one user's security events, for an operator (the admin console). */
export interface SecurityEventDeliveries {
  /** Still to make: the event, its destination, attempts so far and the next try (ms). */
  pending: {
    eventId: string | null;
    type: SecurityEventType | null;
    destination: SecurityEventDestination;
    attempts: number;
    nextAt: number;
  }[];
  /** The latest attempts, newest first (the object keeps the last 100). */
  recent: {
    eventId: string | null;
    type: SecurityEventType | null;
    destination: SecurityEventDestination;
    at: number;
    outcome: DeliveryOutcome;
    attempt: number;
  }[];
}

/** What a revocation did, kept so an operator can fetch it later by id. */
export interface RevocationReceipt {
  id: string;
  at: number;
  actor: RevocationActor;
  /** Sessions revoked. */
  revoked: number;
  /** Open tabs told and closed. */
  socketsClosed: number;
  /** KV records deleted so far, and still to delete (the alarm continues them). */
  kvDeleted: number;
  kvPending: number;
  /**
   * Milliseconds from the call until every session was refused in strict mode (the commit); null
   * while a kill switch's members are still being told (fetch the receipt again by id).
   */
  refusedAfterMs: number | null;
  /** For an organization's kill switch: the members it reaches, those still queued, those that failed (refused by the epoch). */
  members?: number;
  membersPending?: number;
  membersFailed?: number;
}
