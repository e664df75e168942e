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
