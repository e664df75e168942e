/**
 * @module
 * Device binding (issue 30): the contract of Device Bound Session Credentials (W3C DBSC) as
 * Gatehouse speaks it — header names, the session instructions we send, what a browser may report
 * as skipped, and what the session object keeps per bound session. Types and constants only: the
 * worker's door (`workers/auth/session/device-binding/`) and the object's module
 * (`durable-objects/user-sessions/device-binding.ts`) both build on it. It never holds key material
 * beyond a public JWK.
 */

/** Header names of the current protocol (spec and Chrome 145+, second origin trial onwards). */
export const DBSC_HEADERS = {
  /** Response: asks the browser to register a key (`(ES256 RS256);path="…";challenge="…"`). */
  registration: "Secure-Session-Registration",
  /** Request: the signed proof (a `dbsc+jwt`). Chrome sends it raw, the spec as an sf-string. */
  response: "Secure-Session-Response",
  /** Response (403 at refresh, or any response): `"<challenge>";id="<session id>"`. */
  challenge: "Secure-Session-Challenge",
  /** Request (refresh only): the session id. Chrome sends it raw, the spec as an sf-string. */
  sessionId: "Sec-Secure-Session-Id",
  /** Request: why the browser sent an in-scope request without a fresh bound cookie. */
  skipped: "Secure-Session-Skipped",
} as const;

/** The `typ` of every DBSC proof (spec `#format-jwt`). */
export const DBSC_JWT_TYPE = "dbsc+jwt";

/** Signature algorithms we accept, in the order we offer them (ES256 first: smaller, simpler). */
export const DBSC_ALGORITHMS = ["ES256", "RS256"] as const;
export type DbscAlgorithm = (typeof DBSC_ALGORITHMS)[number];

/** Reasons a browser may give in `Secure-Session-Skipped` (spec `#header-secure-session-skipped`). */
export const SKIPPED_REASONS = ["unreachable", "server_error", "quota_exceeded"] as const;
export type SkippedReason = (typeof SKIPPED_REASONS)[number];

/** One member of `Secure-Session-Skipped`: a known reason, or `"unknown"` with what was sent. */
export interface SkippedSession {
  reason: SkippedReason | "unknown";
  /** The raw token when `reason` is `"unknown"`. */
  token?: string;
  /** The session the browser skipped (param `session_identifier`); null when it was absent. */
  sessionIdentifier: string | null;
}

/**
 * Why a refresh proof for a live bound session was refused, as its timeline names it
 * (`session.device_refresh_failed`): `bad_signature` (not signed by the bound key: another key, another
 * algorithm, a broken signature), `unknown_challenge` (replayed, unknown or expired), `malformed`
 * (not a `dbsc+jwt` we can read).
 */
export const DEVICE_REFRESH_FAILURES = ["bad_signature", "unknown_challenge", "malformed"] as const;
export type DeviceRefreshFailure = (typeof DEVICE_REFRESH_FAILURES)[number];

/** What a challenge is for: the first proof of a key, or a proof with an already bound key. */
export type ChallengePurpose = "registration" | "refresh";

/** How a deployment uses device binding: not at all, when the browser offers it, or always. */
export type DeviceBindingMode = "off" | "opportunistic" | "required";

/** A public JWK as DBSC sends it: EC P-256 or RSA, public members only (no `d`, `p`, `q`, …). */
export type DbscPublicJwk = { kty: "EC"; crv: "P-256"; x: string; y: string } | { kty: "RSA"; n: string; e: string };

/** What the session object keeps per bound session (table `bound_keys`). */
export interface BoundKey {
  sessionId: string;
  /** The public key from the registration proof's header `jwk`, members as sent. */
  jwk: DbscPublicJwk;
  alg: DbscAlgorithm;
  /** RFC 7638 SHA-256 thumbprint of `jwk`, base64url: how the key is named in logs and timelines. */
  thumbprint: string;
  /** When the key was bound (object clock, ms). */
  boundAt: number;
  /** The last successful refresh proof (ms); null until the first refresh. */
  refreshedAt: number | null;
}

/** One `credentials` member of the session instructions: a bound cookie. */
export interface SessionCredential {
  type: "cookie";
  name: string;
  /** Only Domain, Path, Secure, HttpOnly, SameSite: Chrome refuses Max-Age, Expires, Partitioned. */
  attributes: string;
}

/** A `scope_specification` rule; evaluated last to first by the browser. */
export interface ScopeRule {
  type: "include" | "exclude";
  /** Default `*`. */
  domain?: string;
  /** Default `/`. */
  path?: string;
}

/** The session instructions (JSON body of a registration or refresh answer, spec `#format-session-instructions`). */
export interface SessionConfig {
  /** Required, non-empty, and equal to the current id on refresh. */
  session_identifier: string;
  /** Relative or absolute; same-site and https (or localhost). Default: the registration URL. */
  refresh_url?: string;
  /** `false` ends the session (the id must still be sent: Chrome reads it first). */
  continue?: boolean;
  scope: {
    /** A bare origin, no path and no trailing slash (Chrome: `kScopeOriginContainsPath`). */
    origin?: string;
    /** Required by Chrome (`kMissingScopeIncludeSite`). */
    include_site: boolean;
    scope_specification?: ScopeRule[];
  };
  /** Required, non-empty (Chrome: `kNoCredentials`). */
  credentials: SessionCredential[];
  allowed_refresh_initiators?: string[];
}

/** Where a site says which origins may register site-wide sessions for it (spec `#well-known`). */
export const DBSC_WELL_KNOWN_PATH = "/.well-known/device-bound-sessions";

/**
 * The `/.well-known/device-bound-sessions` document (spec `#well-known`), served from the site
 * itself (`https://<eTLD+1>`), fetched by the browser without credentials.
 */
export interface DeviceBoundSessionsWellKnown {
  /** Origins allowed to register a session for the whole site (`include_site: true`) from a subdomain. */
  registering_origins: string[];
  /** Origins of other sites allowed to share keys with this site's sessions (federation; empty here). */
  relying_origins: string[];
}
