/**
 * Reference verifier for Security Event Tokens as a Shared Signals receiver must check them, written
 * from the texts only (never from Gatehouse's code; nothing here imports client-sdk/, durable-objects/
 * or workers/):
 *
 * - RFC 8417 (SET) §2.2 claims, §2.3 explicit typing;
 * - OpenID Shared Signals Framework 1.0 (SSF) §3 subject members, §4 SET profile, §8.1.4 / §8.1.5
 *   the verification and stream-updated events;
 * - RFC 9493 §3 subject identifier formats;
 * - OpenID CAEP 1.0 §2 common claims and §3 event types;
 * - OpenID RISC 1.0 §2 event types and §3.1 (`subject_type`);
 * - CAEP Interoperability Profile 1.0 (draft 02) where the text of SSF only says SHOULD;
 * - RFC 8935 §2.4 error codes: every failure says which `err` a push receiver would answer.
 *
 * Section numbers of the OpenID texts are the ones their headings get when rendered (SSF: §4 Events,
 * §6 Event Delivery, §7 Discovery, §8 Management API).
 *
 * Signatures are checked by `jose` (compactVerify over createLocalJWKSet); every claim is checked here
 * by hand, so this file does not rely on any library's claim semantics.
 */
import {
  type CompactJWSHeaderParameters,
  compactVerify,
  createLocalJWKSet,
  decodeProtectedHeader,
  type JSONWebKeySet,
  type JWK,
} from "jose";

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** RFC 8935 §2.4 Security Event Token error codes (plus SSF §8.1.4.1 `invalid_state`). */
export type SetErrorCode =
  | "invalid_request"
  | "invalid_key"
  | "invalid_issuer"
  | "invalid_audience"
  | "authentication_failed"
  | "access_denied"
  | "invalid_state";

/** A SET that breaks a rule: `section` names the rule, `err` the RFC 8935 §2.4 code a receiver would answer. */
export class SetVerificationError extends Error {
  override readonly name = "SetVerificationError";
  constructor(
    readonly err: SetErrorCode,
    readonly section: string,
    detail: string,
  ) {
    super(`${section}: ${detail}`);
  }
}

function fail(section: string, detail: string, err: SetErrorCode = "invalid_request"): never {
  throw new SetVerificationError(err, section, detail);
}

// ---------------------------------------------------------------------------------------------
// Event type URIs
// ---------------------------------------------------------------------------------------------

const SSF_BASE = "https://schemas.openid.net/secevent/ssf/event-type/";
const CAEP_BASE = "https://schemas.openid.net/secevent/caep/event-type/";
const RISC_BASE = "https://schemas.openid.net/secevent/risc/event-type/";

/** Every event type this reference knows, by short name. Any other URI is refused by verifySet. */
export const EVENT_TYPES = {
  // SSF 1.0 §8.1.4.1, §8.1.5
  verification: `${SSF_BASE}verification`,
  streamUpdated: `${SSF_BASE}stream-updated`,
  // CAEP 1.0 §3.1-§3.8
  sessionRevoked: `${CAEP_BASE}session-revoked`,
  tokenClaimsChange: `${CAEP_BASE}token-claims-change`,
  credentialChange: `${CAEP_BASE}credential-change`,
  assuranceLevelChange: `${CAEP_BASE}assurance-level-change`,
  deviceComplianceChange: `${CAEP_BASE}device-compliance-change`,
  sessionEstablished: `${CAEP_BASE}session-established`,
  sessionPresented: `${CAEP_BASE}session-presented`,
  riskLevelChange: `${CAEP_BASE}risk-level-change`,
  // RISC 1.0 §2.1-§2.11
  accountCredentialChangeRequired: `${RISC_BASE}account-credential-change-required`,
  accountPurged: `${RISC_BASE}account-purged`,
  accountDisabled: `${RISC_BASE}account-disabled`,
  accountEnabled: `${RISC_BASE}account-enabled`,
  identifierChanged: `${RISC_BASE}identifier-changed`,
  identifierRecycled: `${RISC_BASE}identifier-recycled`,
  credentialCompromise: `${RISC_BASE}credential-compromise`,
  optIn: `${RISC_BASE}opt-in`,
  optOutInitiated: `${RISC_BASE}opt-out-initiated`,
  optOutCancelled: `${RISC_BASE}opt-out-cancelled`,
  optOutEffective: `${RISC_BASE}opt-out-effective`,
  recoveryActivated: `${RISC_BASE}recovery-activated`,
  recoveryInformationChanged: `${RISC_BASE}recovery-information-changed`,
  sessionsRevoked: `${RISC_BASE}sessions-revoked`,
} as const;

export type EventTypeUri = (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES];

/** CAEP 1.0 §3.3.1: the credential types the text lists ("or any other ... supported mutually"). */
export const CAEP_CREDENTIAL_TYPES = [
  "password",
  "pin",
  "x509",
  "fido2-platform",
  "fido2-roaming",
  "fido-u2f",
  "verifiable-credential",
  "phone-voice",
  "phone-sms",
  "app",
] as const;

/** SSF 1.0 §8.1.2.1: the allowable stream status values. */
export const STREAM_STATUSES = ["enabled", "paused", "disabled"] as const;

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/** RFC 9493 §3: a JSON object with a `format` member; SSF §3.3 adds `complex`. */
export interface SubjectIdentifier {
  format: string;
  [member: string]: unknown;
}

/** The claims of an SSF SET after verifySet's checks (RFC 8417 §2.2, SSF §4.1). */
export interface SetClaims {
  iss: string;
  aud: string | string[];
  iat: number;
  jti: string;
  sub_id: SubjectIdentifier;
  events: Record<string, Record<string, unknown>>;
  txn?: string;
  toe?: number;
  [claim: string]: unknown;
}

export interface VerifiedSet {
  header: CompactJWSHeaderParameters;
  claims: SetClaims;
  eventType: EventTypeUri;
  event: Record<string, unknown>;
}

export interface SubjectCheckOptions {
  /**
   * SSF 1.0 §3.4 allows proprietary identifier formats "agreed to between parties". This reference
   * refuses any format it does not know unless it is listed here (so a typo such as `iss-sub` fails).
   */
  proprietaryFormats?: readonly string[];
  /**
   * RFC 9493 does not say a member may be empty, but an empty `id`/`email`/... identifies nothing.
   * Default true: empty strings are refused.
   */
  refuseEmptyStrings?: boolean;
}

export interface VerifySetOptions extends SubjectCheckOptions {
  /** The JWKS fetched from the transmitter's `jwks_uri` (SSF §4.1.4, §7.1). */
  jwks: JSONWebKeySet;
  /** The issuer the receiver configured and discovered with (SSF §4.1.6, §7.2.4). */
  issuer: string;
  /** This receiver's audience value (RFC 8935 §2: the recipient must be an intended audience). */
  audience: string;
  /** Current time in seconds since the epoch (default: Date.now()). */
  now?: number;
  /** Allowed clock skew for `iat` in seconds (default 60). */
  clockSkewSeconds?: number;
  /**
   * Require a `kid` header that names one key of the JWKS (default true). SSF §4.1.4 only says the
   * key is obtained through `jwks_uri`; the kid is what makes that unambiguous while keys rotate.
   */
  requireKid?: boolean;
  /**
   * Allow more than one member in `events`. SSF §4.2.1 says "SHOULD contain only one event" (several
   * only as alternative URIs of one type); the CAEP Interoperability Profile §2.8.1 makes it MUST.
   * Default false: exactly one.
   */
  allowMultipleEvents?: boolean;
  /**
   * Also enforce the CAEP Interoperability Profile 1.0: §2.6 RS256 with keys of at least 2048 bits,
   * §3.1 / §3.2 a non-empty `reason_admin` in session-revoked and credential-change. Default false.
   */
  interop?: boolean;
  /** Refuse credential types outside CAEP §3.3.1's list (the text also allows mutually agreed ones). */
  knownCredentialTypesOnly?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/** RFC 3986 §3: `scheme ":" ...` with scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), no spaces. */
export function isAbsoluteUri(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/.test(value) && value.length > 0;
}

/** RFC 5646 (BCP 47) language tag, in the common `language(-subtag)*` shape (e.g. en, es-410, zh-Hant-TW). */
function isLanguageTag(value: string): boolean {
  return /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(value);
}

function isIpAddress(value: string): boolean {
  // RFC 4001 §3 text forms: dotted-quad IPv4, or an IPv6 text representation (RFC 4291 §2.2).
  const v4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
  if (v4.test(value)) return true;
  if (!value.includes(":") || !/^[0-9A-Fa-f:.]+$/.test(value)) return false;
  try {
    new URL(`http://[${value}]/`);
    return true;
  } catch {
    return false;
  }
}

/** Bit length of a base64url-encoded unsigned big-endian integer (an RSA modulus, RFC 7518 §6.3.1.1). */
function base64urlUintBits(value: string): number {
  let binary: string;
  try {
    binary = atob(value.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return 0;
  }
  let i = 0;
  while (i < binary.length && binary.charCodeAt(i) === 0) i++;
  if (i === binary.length) return 0;
  return (binary.length - i - 1) * 8 + (32 - Math.clz32(binary.charCodeAt(i)));
}

// ---------------------------------------------------------------------------------------------
// Subject identifiers (RFC 9493 §3, SSF 1.0 §3)
// ---------------------------------------------------------------------------------------------

interface SubjectContext {
  proprietary: ReadonlySet<string>;
  refuseEmpty: boolean;
}

function requireMemberString(subject: JsonObject, member: string, path: string, section: string, ctx: SubjectContext) {
  const value = subject[member];
  if (typeof value !== "string") fail(section, `${path}.${member} is REQUIRED and must be a string`);
  if (ctx.refuseEmpty && value.length === 0) fail(section, `${path}.${member} must not be empty`);
  return value;
}

function checkSimpleSubject(value: unknown, path: string, ctx: SubjectContext, inAliases: boolean): void {
  if (!isObject(value)) fail("RFC 9493 §3", `${path} must be a JSON object (a Subject Identifier)`);
  if ("subject_type" in value) {
    fail("RISC 1.0 §3.1", `${path} uses the deprecated "subject_type" member; new services MUST NOT use it`);
  }
  const format = value.format;
  if (typeof format !== "string" || format.length === 0) {
    fail("RFC 9493 §3", `${path}.format is REQUIRED and must be a non-empty string`);
  }
  switch (format) {
    case "account": {
      const uri = requireMemberString(value, "uri", path, "RFC 9493 §3.2.1", ctx);
      if (!/^acct:[^\s@]+@[^\s@]+$/.test(uri)) fail("RFC 9493 §3.2.1", `${path}.uri must be an "acct" URI (RFC 7565)`);
      return;
    }
    case "email": {
      const email = requireMemberString(value, "email", path, "RFC 9493 §3.2.2", ctx);
      if (!/^[^\s@]+@[^\s@]+$/.test(email))
        fail("RFC 9493 §3.2.2", `${path}.email must be an email address (addr-spec)`);
      return;
    }
    case "iss_sub":
      requireMemberString(value, "iss", path, "RFC 9493 §3.2.3", ctx);
      requireMemberString(value, "sub", path, "RFC 9493 §3.2.3", ctx);
      return;
    case "opaque":
      requireMemberString(value, "id", path, "RFC 9493 §3.2.4", ctx);
      return;
    case "phone_number": {
      const phone = requireMemberString(value, "phone_number", path, "RFC 9493 §3.2.5", ctx);
      if (!/^\+[1-9]\d{1,14}$/.test(phone)) fail("RFC 9493 §3.2.5", `${path}.phone_number must be an E.164 number`);
      return;
    }
    case "did": {
      const url = requireMemberString(value, "url", path, "RFC 9493 §3.2.6", ctx);
      if (!url.startsWith("did:")) fail("RFC 9493 §3.2.6", `${path}.url must be a DID URL ("did:...")`);
      return;
    }
    case "uri": {
      const uri = requireMemberString(value, "uri", path, "RFC 9493 §3.2.7", ctx);
      if (!isAbsoluteUri(uri)) fail("RFC 9493 §3.2.7", `${path}.uri must be an absolute URI`);
      return;
    }
    case "aliases": {
      if (inAliases) fail("RFC 9493 §3.2.8", `${path}: an "aliases" identifier must not contain "aliases" identifiers`);
      const identifiers = value.identifiers;
      if (!Array.isArray(identifiers) || identifiers.length === 0) {
        fail("RFC 9493 §3.2.8", `${path}.identifiers is REQUIRED and must be a non-empty array`);
      }
      identifiers.forEach((member, i) => {
        checkSimpleSubject(member, `${path}.identifiers[${i}]`, ctx, true);
      });
      return;
    }
    case "jwt_id":
      requireMemberString(value, "iss", path, "SSF 1.0 §3.5.1", ctx);
      requireMemberString(value, "jti", path, "SSF 1.0 §3.5.1", ctx);
      return;
    case "saml_assertion_id":
      requireMemberString(value, "issuer", path, "SSF 1.0 §3.5.2", ctx);
      requireMemberString(value, "assertion_id", path, "SSF 1.0 §3.5.2", ctx);
      return;
    case "ip-addresses": {
      const ips = value["ip-addresses"];
      if (!Array.isArray(ips) || ips.length === 0) {
        fail("SSF 1.0 §3.5.3", `${path}["ip-addresses"] is REQUIRED and must be a non-empty array of strings`);
      }
      for (const ip of ips) {
        if (typeof ip !== "string" || !isIpAddress(ip)) {
          fail("SSF 1.0 §3.5.3", `${path}["ip-addresses"] holds ${JSON.stringify(ip)}, not an RFC 4001 IP address`);
        }
      }
      return;
    }
    case "complex":
      fail("SSF 1.0 §3.3", `${path}: a complex subject's members must be simple subjects, not "complex"`);
      break;
    default:
      if (!ctx.proprietary.has(format)) {
        fail(
          "SSF 1.0 §3.4",
          `${path}.format "${format}" is neither registered (RFC 9493 §3.2, SSF §3.5) nor an agreed proprietary format`,
        );
      }
  }
}

/**
 * Checks a Subject Member value (SSF 1.0 §3.1.4): a simple subject (SSF §3.2, an RFC 9493 §3 Subject
 * Identifier) or a complex subject (SSF §3.3) whose members are themselves valid simple subjects.
 */
export function checkSubjectIdentifier(
  value: unknown,
  path = "sub_id",
  options: SubjectCheckOptions = {},
): asserts value is SubjectIdentifier {
  const ctx: SubjectContext = {
    proprietary: new Set(options.proprietaryFormats ?? []),
    refuseEmpty: options.refuseEmptyStrings ?? true,
  };
  if (isObject(value) && value.format === "complex") {
    const members = Object.entries(value).filter(([name]) => name !== "format");
    if (members.length === 0) {
      fail("SSF 1.0 §3.3", `${path} is a complex subject without any simple subject member (one or more required)`);
    }
    for (const [name, member] of members) checkSimpleSubject(member, `${path}.${name}`, ctx, false);
    return;
  }
  checkSimpleSubject(value, path, ctx, false);
}

// ---------------------------------------------------------------------------------------------
// Header, key and signature (RFC 8417 §2.3, SSF 1.0 §4.1.1 / §4.1.4)
// ---------------------------------------------------------------------------------------------

/** Asymmetric JWS algorithms (RFC 7518 §3, RFC 8037) and the JWK each needs. */
const ASYMMETRIC_ALGS: Record<string, { kty: string; crv?: string }> = {
  RS256: { kty: "RSA" },
  RS384: { kty: "RSA" },
  RS512: { kty: "RSA" },
  PS256: { kty: "RSA" },
  PS384: { kty: "RSA" },
  PS512: { kty: "RSA" },
  ES256: { kty: "EC", crv: "P-256" },
  ES384: { kty: "EC", crv: "P-384" },
  ES512: { kty: "EC", crv: "P-521" },
  EdDSA: { kty: "OKP" },
  Ed25519: { kty: "OKP", crv: "Ed25519" },
};

/** RFC 7515 §4.1.9: a `typ` without "/" means "application/" + typ; media types compare case-insensitively. */
function isSeceventTyp(typ: unknown): boolean {
  if (typeof typ !== "string") return false;
  const lower = typ.toLowerCase();
  return lower === "secevent+jwt" || lower === "application/secevent+jwt";
}

function checkHeader(jws: string, options: VerifySetOptions): { header: CompactJWSHeaderParameters; jwk: JWK | null } {
  if (typeof jws !== "string") fail("RFC 8417 §2", "the SET must be a string (a JWT in compact serialization)");
  const parts = jws.split(".");
  if (parts.length === 5) {
    fail("RFC 8417 §2", "the SET is a JWE; this reference verifies signed SETs only (SSF §4.1.4 keys from jwks_uri)");
  }
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]*$/.test(part))) {
    fail("RFC 7515 §7.1", "the SET is not a JWS in compact serialization (three base64url parts)");
  }
  let header: CompactJWSHeaderParameters;
  try {
    header = decodeProtectedHeader(jws) as CompactJWSHeaderParameters;
  } catch (cause) {
    fail("RFC 7515 §7.1", `the protected header cannot be decoded (${String(cause)})`);
  }
  if (!isSeceventTyp(header.typ)) {
    fail(
      "SSF 1.0 §4.1.1 / RFC 8417 §2.3",
      `the "typ" header must be "secevent+jwt" (explicit typing), got ${JSON.stringify(header.typ)}`,
    );
  }
  const alg = header.alg;
  if (typeof alg !== "string" || alg === "none") {
    fail("RFC 8725 §3.1 / SSF 1.0 §4.1.4", `unsigned SET ("alg": ${JSON.stringify(alg)})`, "invalid_key");
  }
  const needs = ASYMMETRIC_ALGS[alg];
  if (!needs) {
    fail(
      "RFC 8725 §3.1 / SSF 1.0 §4.1.4",
      `"alg" ${alg} is not an asymmetric signature algorithm whose key a receiver can take from the published JWKS`,
      "invalid_key",
    );
  }
  if (options.interop && alg !== "RS256") {
    fail("CAEP Interop 1.0 §2.6", `events MUST be signed with RS256, got ${alg}`, "invalid_key");
  }
  const keys = Array.isArray(options.jwks.keys) ? options.jwks.keys : [];
  const kid = header.kid;
  if (kid === undefined) {
    if (options.requireKid ?? true)
      fail("SSF 1.0 §4.1.4 / RFC 7515 §4.1.4", 'the "kid" header is missing', "invalid_key");
    return { header, jwk: null };
  }
  if (typeof kid !== "string" || kid.length === 0) {
    fail("RFC 7515 §4.1.4", `the "kid" header must be a non-empty string, got ${JSON.stringify(kid)}`, "invalid_key");
  }
  const matching = keys.filter((key) => key.kid === kid);
  if (matching.length === 0) {
    fail("SSF 1.0 §4.1.4", `"kid" ${kid} names no key of the transmitter's JWKS (jwks_uri)`, "invalid_key");
  }
  if (matching.length > 1) {
    fail("RFC 7517 §4.5", `"kid" ${kid} names ${matching.length} keys of the JWKS; it must name one`, "invalid_key");
  }
  const jwk = matching[0] as JWK;
  if (jwk.kty !== needs.kty || (needs.crv !== undefined && jwk.crv !== needs.crv)) {
    fail(
      "RFC 7518 §3.1",
      `key ${kid} is ${jwk.kty}${jwk.crv ? `/${jwk.crv}` : ""}, which cannot verify "alg" ${alg}`,
      "invalid_key",
    );
  }
  if (jwk.alg !== undefined && jwk.alg !== alg) {
    fail("RFC 7517 §4.4", `key ${kid} is restricted to "alg" ${jwk.alg}, the SET uses ${alg}`, "invalid_key");
  }
  if (jwk.use !== undefined && jwk.use !== "sig") {
    fail("RFC 7517 §4.2", `key ${kid} has "use" ${jwk.use}, not "sig"`, "invalid_key");
  }
  if (options.interop) {
    const bits = base64urlUintBits(typeof jwk.n === "string" ? jwk.n : "");
    if (bits < 2048) fail("CAEP Interop 1.0 §2.6", `RS256 keys must have at least 2048 bits, key ${kid} has ${bits}`);
  }
  return { header, jwk };
}

// ---------------------------------------------------------------------------------------------
// Event payloads (SSF §8.1.4.1 / §8.1.5, CAEP §2-§3, RISC §2)
// ---------------------------------------------------------------------------------------------

function optionalString(event: JsonObject, member: string, section: string, type: string): void {
  if (member in event && typeof event[member] !== "string") fail(section, `${type}: "${member}" must be a string`);
}

function requireString(event: JsonObject, member: string, section: string, type: string): string {
  const value = event[member];
  if (typeof value !== "string" || value.length === 0) {
    fail(section, `${type}: "${member}" is REQUIRED and must be a non-empty string`);
  }
  return value;
}

function requireOneOf(
  event: JsonObject,
  member: string,
  allowed: readonly string[],
  section: string,
  type: string,
  required: boolean,
): void {
  if (!(member in event)) {
    if (required) fail(section, `${type}: "${member}" is REQUIRED (one of ${allowed.join(", ")})`);
    return;
  }
  const value = event[member];
  if (typeof value !== "string" || !allowed.includes(value)) {
    fail(section, `${type}: "${member}" must be one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`);
  }
}

function checkLanguageMap(event: JsonObject, member: string, section: string, type: string): void {
  if (!(member in event)) return;
  const map = event[member];
  if (!isObject(map)) fail(section, `${type}: "${member}" must be a JSON object keyed by BCP 47 language tags`);
  const entries = Object.entries(map);
  if (entries.length === 0) fail(section, `${type}: "${member}" must contain one or more key/value pairs`);
  for (const [tag, message] of entries) {
    if (!isLanguageTag(tag))
      fail(section, `${type}: "${member}" key ${JSON.stringify(tag)} is not a BCP 47 language tag`);
    if (typeof message !== "string") fail(section, `${type}: "${member}".${tag} must be a string message`);
  }
}

function requireNonEmptyReasonAdmin(event: JsonObject, section: string, type: string): void {
  const map = event.reason_admin;
  const ok = isObject(map) && Object.values(map).some((message) => isNonEmptyString(message));
  if (!ok) fail(section, `${type}: "reason_admin" MUST be populated with a non-empty value`);
}

/** CAEP 1.0 §2: the optional claims every CAEP event may carry. */
function checkCaepCommon(event: JsonObject, type: string): void {
  if ("event_timestamp" in event) {
    const ts = event.event_timestamp;
    if (typeof ts !== "number" || !Number.isFinite(ts)) {
      fail("CAEP 1.0 §2", `${type}: "event_timestamp" must be a JSON number (seconds since the epoch)`);
    }
  }
  requireOneOf(event, "initiating_entity", ["admin", "user", "policy", "system"], "CAEP 1.0 §2", type, false);
  checkLanguageMap(event, "reason_admin", "CAEP 1.0 §2", type);
  checkLanguageMap(event, "reason_user", "CAEP 1.0 §2", type);
}

function checkCredentialType(event: JsonObject, section: string, type: string, options: VerifySetOptions): void {
  const credentialType = requireString(event, "credential_type", section, type);
  if (options.knownCredentialTypesOnly && !(CAEP_CREDENTIAL_TYPES as readonly string[]).includes(credentialType)) {
    fail(section, `${type}: "credential_type" ${credentialType} is not one of ${CAEP_CREDENTIAL_TYPES.join(", ")}`);
  }
}

/** Streams' own subject: SSF §8.1.4.1 / §8.1.5 "MUST be of format opaque", `id` the stream id. */
function requireStreamSubject(claims: SetClaims, section: string, type: string): void {
  if (claims.sub_id.format !== "opaque") {
    fail(section, `${type}: the top-level "sub_id" MUST have format "opaque" (its id is the stream id)`);
  }
}

/**
 * Checks one event payload against its type's definition. Throws for an unknown type. Members the
 * texts do not define are ignored (SSF 1.0 §4.2.3: receivers MUST ignore fields they do not understand).
 */
export function checkEventPayload(
  eventType: string,
  event: JsonObject,
  claims: SetClaims,
  options: VerifySetOptions,
): asserts eventType is EventTypeUri {
  const type = eventType.slice(eventType.lastIndexOf("/") + 1);
  const isSsf = eventType.startsWith(SSF_BASE);
  const isCaep = eventType.startsWith(CAEP_BASE);
  // SSF §3.1.2: new event types MUST NOT use `subject` in the event; §3.1.1: CAEP/RISC events MAY.
  if ("subject" in event) {
    if (isSsf) fail("SSF 1.0 §3.1.2", `${type}: new event types MUST NOT carry a "subject" field in the event`);
    checkSubjectIdentifier(event.subject, `events["${eventType}"].subject`, options);
  }
  if (isCaep) checkCaepCommon(event, type);

  switch (eventType) {
    case EVENT_TYPES.verification:
      requireStreamSubject(claims, "SSF 1.0 §8.1.4.1", type);
      optionalString(event, "state", "SSF 1.0 §8.1.4.1 / §8.1.4.2", type);
      return;
    case EVENT_TYPES.streamUpdated:
      requireStreamSubject(claims, "SSF 1.0 §8.1.5", type);
      requireOneOf(event, "status", STREAM_STATUSES, "SSF 1.0 §8.1.5 / §8.1.2.1", type, true);
      optionalString(event, "reason", "SSF 1.0 §8.1.5", type);
      return;

    case EVENT_TYPES.sessionRevoked:
      // CAEP §3.1.1: no event-specific claims.
      if (options.interop) requireNonEmptyReasonAdmin(event, "CAEP Interop 1.0 §3.1", type);
      return;
    case EVENT_TYPES.tokenClaimsChange: {
      const changed = event.claims;
      if (!isObject(changed) || Object.keys(changed).length === 0) {
        fail("CAEP 1.0 §3.2.1", `${type}: "claims" is REQUIRED: a JSON object with one or more claims`);
      }
      return;
    }
    case EVENT_TYPES.credentialChange:
      checkCredentialType(event, "CAEP 1.0 §3.3.1", type, options);
      requireOneOf(event, "change_type", ["create", "revoke", "update", "delete"], "CAEP 1.0 §3.3.1", type, true);
      for (const member of ["friendly_name", "x509_issuer", "x509_serial", "fido2_aaguid"]) {
        optionalString(event, member, "CAEP 1.0 §3.3.1", type);
      }
      if (options.interop) requireNonEmptyReasonAdmin(event, "CAEP Interop 1.0 §3.2", type);
      return;
    case EVENT_TYPES.assuranceLevelChange:
      requireString(event, "namespace", "CAEP 1.0 §3.4.1", type);
      requireString(event, "current_level", "CAEP 1.0 §3.4.1", type);
      optionalString(event, "previous_level", "CAEP 1.0 §3.4.1", type);
      requireOneOf(event, "change_direction", ["increase", "decrease"], "CAEP 1.0 §3.4.1", type, false);
      return;
    case EVENT_TYPES.deviceComplianceChange:
      requireOneOf(event, "previous_status", ["compliant", "not-compliant"], "CAEP 1.0 §3.5.1", type, true);
      requireOneOf(event, "current_status", ["compliant", "not-compliant"], "CAEP 1.0 §3.5.1", type, true);
      return;
    case EVENT_TYPES.sessionEstablished:
      optionalString(event, "acr", "CAEP 1.0 §3.6.1", type);
      if ("amr" in event) {
        const amr = event.amr;
        if (!Array.isArray(amr) || amr.some((method) => typeof method !== "string")) {
          fail("CAEP 1.0 §3.6.1", `${type}: "amr" MUST be an array of strings`);
        }
      }
      return;
    case EVENT_TYPES.sessionPresented:
      // CAEP §3.7.1: only optional fp_ua / ext_id, untyped in the text.
      return;
    case EVENT_TYPES.riskLevelChange:
      requireString(event, "principal", "CAEP 1.0 §3.8.1", type);
      requireOneOf(event, "current_level", ["LOW", "MEDIUM", "HIGH"], "CAEP 1.0 §3.8.1", type, true);
      requireOneOf(event, "previous_level", ["LOW", "MEDIUM", "HIGH"], "CAEP 1.0 §3.8.1", type, false);
      optionalString(event, "risk_reason", "CAEP 1.0 §3.8.1", type);
      return;

    case EVENT_TYPES.accountDisabled:
      requireOneOf(event, "reason", ["hijacking", "bulk-account"], "RISC 1.0 §2.3", type, false);
      return;
    case EVENT_TYPES.identifierChanged:
    case EVENT_TYPES.identifierRecycled: {
      const section = eventType === EVENT_TYPES.identifierChanged ? "RISC 1.0 §2.5" : "RISC 1.0 §2.6";
      const subject = isObject(event.subject) ? event.subject : claims.sub_id;
      if (subject.format !== "email" && subject.format !== "phone_number") {
        fail(
          section,
          `${type}: the subject MUST be an email or phone identifier, got format ${String(subject.format)}`,
        );
      }
      if (eventType === EVENT_TYPES.identifierChanged) optionalString(event, "new-value", section, type);
      return;
    }
    case EVENT_TYPES.credentialCompromise: {
      checkCredentialType(event, "RISC 1.0 §2.7", type, options);
      if (
        "event_timestamp" in event &&
        (typeof event.event_timestamp !== "number" || !Number.isFinite(event.event_timestamp))
      ) {
        fail("RISC 1.0 §2.7", `${type}: "event_timestamp" must be a JSON number`);
      }
      // RISC §2.7 gives no type for reason_admin / reason_user: a string, or CAEP §2's language map.
      for (const member of ["reason_admin", "reason_user"]) {
        if (member in event && typeof event[member] !== "string")
          checkLanguageMap(event, member, "RISC 1.0 §2.7", type);
      }
      return;
    }
    case EVENT_TYPES.sessionsRevoked:
      fail("RISC 1.0 §2.11", `${type} is deprecated: new implementations MUST use CAEP session-revoked`);
      break;
    case EVENT_TYPES.accountCredentialChangeRequired:
    case EVENT_TYPES.accountPurged:
    case EVENT_TYPES.accountEnabled:
    case EVENT_TYPES.optIn:
    case EVENT_TYPES.optOutInitiated:
    case EVENT_TYPES.optOutCancelled:
    case EVENT_TYPES.optOutEffective:
    case EVENT_TYPES.recoveryActivated:
    case EVENT_TYPES.recoveryInformationChanged:
      // RISC §2.1, §2.2, §2.4, §2.8.1-§2.8.4, §2.9, §2.10: "Attributes: none".
      return;
    default:
      fail("SSF 1.0 §4.2.1", `unknown event type ${JSON.stringify(eventType)} (not defined by SSF, CAEP or RISC 1.0)`);
  }
}

// ---------------------------------------------------------------------------------------------
// verifySet
// ---------------------------------------------------------------------------------------------

/**
 * Verifies a SET as an SSF receiver must (see the file comment for the texts). Throws a
 * SetVerificationError naming the broken rule; returns the header, claims and the one event.
 */
export async function verifySet(jws: string, options: VerifySetOptions): Promise<VerifiedSet> {
  const { header } = checkHeader(jws, options);

  // Signature: jose, with the key chosen from the published JWKS by kid/alg (SSF §4.1.4).
  let payloadBytes: Uint8Array;
  try {
    const verified = await compactVerify(jws, createLocalJWKSet(options.jwks), {
      algorithms: Object.keys(ASYMMETRIC_ALGS),
    });
    payloadBytes = verified.payload;
  } catch (cause) {
    fail(
      "RFC 7515 §5.2 / SSF 1.0 §4.1.4",
      `the signature does not verify with the JWKS (${String(cause)})`,
      "invalid_key",
    );
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(payloadBytes));
  } catch (cause) {
    fail("RFC 7519 §7.2", `the payload is not UTF-8 JSON (${String(cause)})`);
  }
  if (!isObject(parsed)) fail("RFC 7519 §7.2", "the claims set must be a JSON object");
  const claims = parsed;

  // iss: RFC 8417 §2.2 REQUIRED; SSF §4.1.6 and §7.2.4: identical to the discovered issuer.
  if (typeof claims.iss !== "string") fail("RFC 8417 §2.2", '"iss" is REQUIRED and must be a string', "invalid_issuer");
  if (claims.iss !== options.issuer) {
    fail(
      "SSF 1.0 §4.1.6 / §7.2.4",
      `"iss" ${JSON.stringify(claims.iss)} is not identical to the issuer ${JSON.stringify(options.issuer)}`,
      "invalid_issuer",
    );
  }

  // aud: SSF §4.1.8 a string or an array of strings; RFC 8935 §2 this recipient must be an audience.
  const aud = claims.aud;
  const audList = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : null;
  if (!audList || audList.length === 0 || audList.some((value) => typeof value !== "string")) {
    fail("SSF 1.0 §4.1.8", '"aud" must be a string or a non-empty array of strings', "invalid_audience");
  }
  if (!audList.includes(options.audience)) {
    fail(
      "RFC 8935 §2 / SSF 1.0 §4.1.8",
      `"aud" ${JSON.stringify(aud)} does not contain this receiver's audience ${JSON.stringify(options.audience)}`,
      "invalid_audience",
    );
  }

  // iat: RFC 8417 §2.2 REQUIRED NumericDate; not in the future beyond the allowed skew.
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const skew = options.clockSkewSeconds ?? 60;
  if (typeof claims.iat !== "number" || !Number.isFinite(claims.iat) || claims.iat < 0) {
    fail("RFC 8417 §2.2", '"iat" is REQUIRED and must be a NumericDate (a JSON number)');
  }
  if (claims.iat > now + skew) {
    fail("RFC 8417 §2.2", `"iat" ${claims.iat} is in the future (now ${now}, skew ${skew} s)`);
  }

  // jti: RFC 8417 §2.2 REQUIRED unique identifier.
  if (!isNonEmptyString(claims.jti)) fail("RFC 8417 §2.2", '"jti" is REQUIRED and must be a non-empty string');

  // sub / exp: SSF §4.1.2, §4.1.3, §4.1.7 MUST NOT be present.
  if ("sub" in claims) fail("SSF 1.0 §4.1.2 / §4.1.3", 'the JWT "sub" claim MUST NOT be present in an SSF SET');
  if ("exp" in claims) fail("SSF 1.0 §4.1.7 / §4.1.3", 'the "exp" claim MUST NOT be used in SETs');

  // txn / toe: RFC 8417 §2.2 (txn a string; toe a NumericDate); SSF §4.1.9.
  if ("txn" in claims && !isNonEmptyString(claims.txn))
    fail("RFC 8417 §2.2 / SSF 1.0 §4.1.9", '"txn" must be a non-empty string');
  if ("toe" in claims && (typeof claims.toe !== "number" || !Number.isFinite(claims.toe))) {
    fail("RFC 8417 §2.2", '"toe" must be a NumericDate');
  }

  // sub_id: SSF §3.1 and §4.1.2, a top-level Subject Member (simple or complex).
  if (!("sub_id" in claims)) fail("SSF 1.0 §3.1 / §4.1.2", 'the top-level "sub_id" claim is REQUIRED');
  checkSubjectIdentifier(claims.sub_id, "sub_id", options);

  // events: RFC 8417 §2.2 REQUIRED object of event URI -> object; SSF §4.2.1 one event.
  const events = claims.events;
  if (!isObject(events)) fail("RFC 8417 §2.2", '"events" is REQUIRED and must be a JSON object');
  const entries = Object.entries(events);
  if (entries.length === 0) fail("RFC 8417 §2.2", '"events" must contain an event');
  if (entries.length > 1 && !options.allowMultipleEvents) {
    fail(
      "SSF 1.0 §4.2.1 / CAEP Interop 1.0 §2.8.1",
      `"events" must contain exactly one event, got ${entries.length}: ${entries.map(([uri]) => uri).join(", ")}`,
    );
  }
  for (const [uri, payload] of entries) {
    if (!isAbsoluteUri(uri)) fail("RFC 8417 §2.2", `event identifier ${JSON.stringify(uri)} is not a URI`);
    if (!isObject(payload)) fail("RFC 8417 §2.2", `the payload of ${uri} must be a JSON object`);
  }
  const typedClaims = claims as SetClaims;
  // With allowMultipleEvents, the further members (alternative URIs, SSF §4.2.1) are checked too.
  for (const [uri, payload] of entries.slice(1)) checkEventPayload(uri, payload as JsonObject, typedClaims, options);
  const [eventType, event] = entries[0] as [string, JsonObject];
  checkEventPayload(eventType, event, typedClaims, options);

  return { header, claims: typedClaims, eventType, event };
}

// ---------------------------------------------------------------------------------------------
// Stream-scoped expectations
// ---------------------------------------------------------------------------------------------

/**
 * SSF 1.0 §8.1.4.1 / §8.1.5: the verification and stream-updated events name their stream with an
 * `opaque` top-level `sub_id` whose `id` is the stream id.
 */
export function expectStreamSubject(result: VerifiedSet, streamId: string): void {
  const subject = result.claims.sub_id;
  if (subject.format !== "opaque") {
    fail("SSF 1.0 §8.1.4.1 / §8.1.5", `"sub_id" must have format "opaque", got ${JSON.stringify(subject.format)}`);
  }
  if (subject.id !== streamId) {
    fail(
      "SSF 1.0 §8.1.4.1 / §8.1.5",
      `"sub_id".id ${JSON.stringify(subject.id)} is not the stream id ${JSON.stringify(streamId)}`,
    );
  }
}

/**
 * SSF 1.0 §8.1.4: a verification event for `streamId`. `state` is the value the receiver sent in its
 * request (§8.1.4.2, echoed: mismatch is `invalid_state`); `null` for a transmitter-initiated event,
 * which MUST NOT carry a state.
 */
export function expectVerificationEvent(result: VerifiedSet, streamId: string, state: string | null): void {
  if (result.eventType !== EVENT_TYPES.verification) {
    fail("SSF 1.0 §8.1.4.1", `expected a verification event, got ${result.eventType}`);
  }
  expectStreamSubject(result, streamId);
  if (state === null) {
    if ("state" in result.event) {
      fail("SSF 1.0 §8.1.4.2", "a transmitter-initiated verification event must not carry a state", "invalid_state");
    }
  } else if (result.event.state !== state) {
    fail(
      "SSF 1.0 §8.1.4.1",
      `"state" ${JSON.stringify(result.event.state)} does not echo the requested ${JSON.stringify(state)}`,
      "invalid_state",
    );
  }
}

/** SSF 1.0 §8.1.5: a stream-updated event for `streamId` announcing `status`. */
export function expectStreamUpdated(
  result: VerifiedSet,
  streamId: string,
  status: (typeof STREAM_STATUSES)[number],
): void {
  if (result.eventType !== EVENT_TYPES.streamUpdated) {
    fail("SSF 1.0 §8.1.5", `expected a stream-updated event, got ${result.eventType}`);
  }
  expectStreamSubject(result, streamId);
  if (result.event.status !== status) {
    fail("SSF 1.0 §8.1.5", `"status" ${JSON.stringify(result.event.status)} is not ${JSON.stringify(status)}`);
  }
}
