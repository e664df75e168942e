/**
 * @module
 * Feature contract — shared signals (issue 32): the OpenID Shared Signals Framework 1.0 as Gatehouse
 * speaks it, out (transmitter) and in (receiver). Security Event Tokens (RFC 8417) carrying CAEP 1.0
 * and RISC 1.0 events, subjects per RFC 9493, push delivery per RFC 8935. Types and constants only:
 * the worker's transmitter and receiver (`workers/auth/ssf/`) build on it.
 */

/** Event type URIs we send or act on (CAEP 1.0 §3, RISC 1.0 §2, SSF 1.0 §8 verification). */
export const SSF_EVENTS = {
  sessionRevoked: "https://schemas.openid.net/secevent/caep/event-type/session-revoked",
  tokenClaimsChange: "https://schemas.openid.net/secevent/caep/event-type/token-claims-change",
  credentialChange: "https://schemas.openid.net/secevent/caep/event-type/credential-change",
  accountDisabled: "https://schemas.openid.net/secevent/risc/event-type/account-disabled",
  accountPurged: "https://schemas.openid.net/secevent/risc/event-type/account-purged",
  credentialCompromise: "https://schemas.openid.net/secevent/risc/event-type/credential-compromise",
  verification: "https://schemas.openid.net/secevent/ssf/event-type/verification",
  streamUpdated: "https://schemas.openid.net/secevent/ssf/event-type/stream-updated",
} as const;
export type SsfEventType = (typeof SSF_EVENTS)[keyof typeof SSF_EVENTS];

/** The JOSE `typ` of a SET (RFC 8417 §2.3). */
export const SET_TYPE = "secevent+jwt";

/** A subject identifier (RFC 9493): the formats we send or match. */
export type SubjectIdentifier =
  | { format: "email"; email: string }
  | { format: "iss_sub"; iss: string; sub: string }
  | { format: "opaque"; id: string }
  | { format: "complex"; user?: SubjectIdentifier; session?: SubjectIdentifier; tenant?: SubjectIdentifier };

/** The claims of a SET (RFC 8417 §2.2; SSF 1.0 §4: `sub_id` at the top level, `txn` optional). */
export interface SecurityEventToken {
  iss: string;
  aud: string | string[];
  iat: number;
  jti: string;
  sub_id: SubjectIdentifier;
  txn?: string;
  events: Record<string, Record<string, unknown>>;
}

/** RFC 8935 §2.4 error codes (IANA "Security Event Token Error Codes"): what a 400's `err` may say. */
export const PUSH_ERROR_CODES = [
  "invalid_request",
  "invalid_key",
  "invalid_issuer",
  "invalid_audience",
  "authentication_failed",
  "access_denied",
] as const;
export type PushErrorCode = (typeof PUSH_ERROR_CODES)[number];

/** RFC 8935: push delivery, the one method our streams use. */
export const PUSH_DELIVERY = "urn:ietf:rfc:8935";
/** RFC 8936: poll delivery (not offered: a create without `delivery` is refused). */
export const POLL_DELIVERY = "urn:ietf:rfc:8936";

/** SSF 1.0 §8.1.2: a stream's status. */
export type StreamStatusValue = "enabled" | "paused" | "disabled";

/** SSF 1.0 §8.1.1: a stream's configuration as the management API shows it. */
export interface StreamConfiguration {
  stream_id: string;
  iss: string;
  aud: string;
  events_supported: string[];
  events_requested: string[];
  events_delivered: string[];
  delivery: { method: typeof PUSH_DELIVERY; endpoint_url: string };
  min_verification_interval: number;
  description?: string;
}

/** SSF 1.0 §8.1.2: a stream's status as the management API shows it. */
export interface StreamStatus {
  stream_id: string;
  status: StreamStatusValue;
  reason?: string;
}

/** How one push of a SET went (the stream's delivery log): `refused` is a 400 the receiver will not take again. */
export type StreamDeliveryOutcome = "delivered" | "failed" | "dropped" | "refused";

/** One attempt in a stream's delivery log (an operator's view: no SET, no subject). */
export interface StreamDeliveryAttempt {
  streamId: string;
  jti: string;
  eventType: string;
  at: number;
  outcome: StreamDeliveryOutcome;
  attempt: number;
  /** The receiver's HTTP status, or null when no answer came (network error, timeout). */
  status: number | null;
  /** RFC 8935 §2.4 `err` of a 400, when the receiver gave one. */
  err: string | null;
}

/** A stream as an operator sees it: its receiver, configuration, status, what is pending and the recent attempts. */
export interface StreamOverview {
  receiver: string;
  configuration: StreamConfiguration;
  status: StreamStatus;
  pending: number;
  /** Subjects the receiver removed (their events are held back; SSF 1.0 §9.3 warns of malicious removal). */
  removedSubjects: number;
  recent: StreamDeliveryAttempt[];
}
