/**
 * Reference receiver-side client of an SSF transmitter, written from the texts only (nothing here
 * imports client-sdk/, durable-objects/ or workers/):
 *
 * - OpenID Shared Signals Framework 1.0 (SSF) §6 delivery methods, §7 transmitter configuration
 *   discovery, §8 management API (stream configuration, status, subjects, verification);
 * - RFC 8615 (well-known URIs), RFC 7517 (JWK Set), RFC 6750 §2.1 (Bearer header), RFC 9110 §15.5.2
 *   (401 carries WWW-Authenticate), RFC 3986 §2.3 (unreserved characters);
 * - CAEP Interoperability Profile 1.0 (draft 02) §2.3, only when asked (`interop`).
 *
 * Section numbers of the OpenID texts are the ones their headings get when rendered: §6 Event
 * Delivery, §7 Transmitter Configuration Discovery, §8 Management API for SET Event Streams.
 *
 * After discover(), every request goes to a URL taken from the transmitter's metadata: no path is
 * hard-coded here except the well-known one, which SSF §7.2 itself fixes.
 */
import type { JSONWebKeySet } from "jose";

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** A transmitter answer that breaks a rule of the texts; `section` names the rule. */
export class SsfConformanceError extends Error {
  override readonly name = "SsfConformanceError";
  constructor(
    readonly section: string,
    detail: string,
  ) {
    super(`${section}: ${detail}`);
  }
}

function fail(section: string, detail: string): never {
  throw new SsfConformanceError(section, detail);
}

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

export type FetchLike = (request: Request) => Promise<Response>;

/** SSF 1.0 §7.1 Transmitter Configuration Metadata. */
export interface TransmitterMetadata {
  spec_version?: string;
  issuer: string;
  jwks_uri: string;
  delivery_methods_supported?: string[];
  configuration_endpoint?: string;
  status_endpoint?: string;
  add_subject_endpoint?: string;
  remove_subject_endpoint?: string;
  verification_endpoint?: string;
  critical_subject_members?: string[];
  authorization_schemes?: AuthorizationScheme[];
  default_subjects?: "ALL" | "NONE";
  [other: string]: unknown;
}

/** SSF 1.0 §7.1.1. */
export interface AuthorizationScheme {
  spec_urn: string;
  [other: string]: unknown;
}

export type EndpointName =
  | "configuration_endpoint"
  | "status_endpoint"
  | "add_subject_endpoint"
  | "remove_subject_endpoint"
  | "verification_endpoint";

/** SSF 1.0 §6.1 delivery methods. */
export const PUSH_METHOD = "urn:ietf:rfc:8935";
export const POLL_METHOD = "urn:ietf:rfc:8936";

/** SSF 1.0 §8.1.1 `delivery`, with the members §6.1.1 / §6.1.2 define. */
export interface DeliveryConfig {
  method: string;
  endpoint_url?: string;
  authorization_header?: string;
  [other: string]: unknown;
}

/** SSF 1.0 §8.1.1 Stream Configuration. */
export interface StreamConfiguration {
  stream_id: string;
  iss: string;
  aud: string | string[];
  events_supported?: string[];
  events_requested?: string[];
  events_delivered: string[];
  delivery: DeliveryConfig;
  min_verification_interval?: number;
  description?: string;
  inactivity_timeout?: number;
  [other: string]: unknown;
}

/** SSF 1.0 §8.1.1.1: the Receiver-Supplied members a create request MAY carry. */
export interface CreateStreamRequest {
  delivery?: DeliveryConfig;
  events_requested?: string[];
  description?: string;
  [other: string]: unknown;
}

/** SSF 1.0 §8.1.1.3 / §8.1.1.4: stream_id plus the properties to change (PATCH) or all of them (PUT). */
export interface UpdateStreamRequest extends CreateStreamRequest {
  stream_id: string;
}

/** SSF 1.0 §8.1.2.1 stream status. */
export interface StreamStatus {
  stream_id: string;
  status: "enabled" | "paused" | "disabled";
  reason?: string;
  [other: string]: unknown;
}

/** SSF 1.0 §8.1.2.2. */
export interface UpdateStatusRequest {
  stream_id: string;
  status: string;
  reason?: string;
  [other: string]: unknown;
}

/** SSF 1.0 §8.1.3.2 / §8.1.3.3 (`verified` only for add). */
export interface SubjectRequest {
  stream_id: string;
  subject: { format: string; [member: string]: unknown };
  verified?: boolean;
  [other: string]: unknown;
}

/** SSF 1.0 §8.1.4.2. */
export interface VerificationRequest {
  stream_id: string;
  state?: string;
  [other: string]: unknown;
}

/** What every management call returns, so tests can assert status codes and bodies themselves. */
export interface ManagementResponse {
  status: number;
  /** Parsed JSON when the body is JSON, the raw text when it is not, null when it is empty. */
  body: unknown;
  headers: Headers;
  /** The raw body text. */
  text: string;
}

export interface SendOptions {
  /** Bearer token to send instead of the configured one; `null` sends no Authorization header. */
  token?: string | null;
  /** A whole Authorization header value (wins over `token`), e.g. another scheme. */
  authorization?: string;
  /** Sent as is instead of JSON.stringify(body), for malformed-request (400) tests. */
  rawBody?: string;
  /** Content-Type of the request body (default application/json); `null` omits the header. */
  contentType?: string | null;
  /** Extra query parameters added to the endpoint URL. */
  query?: Record<string, string>;
}

export type ManagementOperation =
  | "createStream"
  | "readStream"
  | "updateStream"
  | "replaceStream"
  | "deleteStream"
  | "readStatus"
  | "updateStatus"
  | "addSubject"
  | "removeSubject"
  | "verify";

/** Success status of each operation, with the section that fixes it. */
export const SSF_SUCCESS_STATUS: Record<
  ManagementOperation,
  { status: number; body: "json" | "empty"; section: string }
> = {
  createStream: { status: 201, body: "json", section: "SSF 1.0 §8.1.1.1" },
  readStream: { status: 200, body: "json", section: "SSF 1.0 §8.1.1.2" },
  updateStream: { status: 200, body: "json", section: "SSF 1.0 §8.1.1.3" },
  replaceStream: { status: 200, body: "json", section: "SSF 1.0 §8.1.1.4" },
  deleteStream: { status: 204, body: "empty", section: "SSF 1.0 §8.1.1.5" },
  readStatus: { status: 200, body: "json", section: "SSF 1.0 §8.1.2.1" },
  updateStatus: { status: 200, body: "json", section: "SSF 1.0 §8.1.2.2" },
  addSubject: { status: 200, body: "empty", section: "SSF 1.0 §8.1.3.2" },
  removeSubject: { status: 204, body: "empty", section: "SSF 1.0 §8.1.3.3" },
  verify: { status: 204, body: "empty", section: "SSF 1.0 §8.1.4.2" },
};

/** The error (and pending, 202) statuses each operation's table lists. */
export const SSF_ERROR_STATUSES: Record<ManagementOperation, readonly number[]> = {
  createStream: [400, 401, 403, 409],
  readStream: [401, 403, 404],
  updateStream: [202, 400, 401, 403, 404],
  replaceStream: [202, 400, 401, 403, 404],
  deleteStream: [401, 403, 404],
  readStatus: [401, 403, 404],
  updateStatus: [202, 400, 401, 403, 404],
  addSubject: [400, 401, 403, 404, 429],
  removeSubject: [400, 401, 403, 404, 429],
  verify: [400, 401, 404, 429],
};

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** RFC 3986 §3: scheme ":" ..., no whitespace. */
function isAbsoluteUri(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/.test(value);
}

function mediaType(headers: Headers): string {
  return (headers.get("Content-Type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/**
 * SSF 1.0 §7.1: `issuer` and every endpoint are URLs using the https scheme ("HTTP over TLS"); the
 * issuer also has no query or fragment component.
 */
function checkHttpsUrl(value: unknown, name: string, section: string, allowHttp: boolean, issuerLike = false): string {
  if (typeof value !== "string") fail(section, `${name} must be a URL string, got ${JSON.stringify(value)}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(section, `${name} ${JSON.stringify(value)} is not an absolute URL`);
  }
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) {
    fail(section, `${name} ${JSON.stringify(value)} must use the https scheme`);
  }
  if (issuerLike && (url.search !== "" || url.hash !== "" || value.includes("?") || value.includes("#"))) {
    fail(section, `${name} ${JSON.stringify(value)} must have no query or fragment component`);
  }
  return value;
}

function checkStringArray(value: unknown, name: string, section: string, uris: boolean): string[] {
  if (!Array.isArray(value)) fail(section, `${name} must be an array of strings`);
  for (const member of value) {
    if (typeof member !== "string" || member.length === 0)
      fail(section, `${name} holds ${JSON.stringify(member)}, not a string`);
    if (uris && !isAbsoluteUri(member)) fail(section, `${name} holds ${JSON.stringify(member)}, not a URI`);
  }
  return value as string[];
}

/** SSF 1.0 §7.2: insert "/.well-known/ssf-configuration" between host and path (trailing "/" removed). */
export function wellKnownUrl(issuer: string): string {
  const url = new URL(issuer);
  const path = url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname;
  return `${url.origin}/.well-known/ssf-configuration${path}`;
}

// ---------------------------------------------------------------------------------------------
// Metadata and JWKS checks
// ---------------------------------------------------------------------------------------------

export interface MetadataCheckOptions {
  /** Accept http: URLs (SSF §7.1 requires https). Default false. */
  allowHttp?: boolean;
  /** Also enforce the CAEP Interoperability Profile 1.0 §2.3 (spec_version, endpoints, OAuth scheme). */
  interop?: boolean;
}

const ENDPOINTS: readonly EndpointName[] = [
  "configuration_endpoint",
  "status_endpoint",
  "add_subject_endpoint",
  "remove_subject_endpoint",
  "verification_endpoint",
];

/** Checks a Transmitter Configuration document against SSF 1.0 §7.1 and §7.2.3-§7.2.4. */
export function checkTransmitterMetadata(
  json: unknown,
  issuer: string,
  options: MetadataCheckOptions = {},
): asserts json is TransmitterMetadata {
  const allowHttp = options.allowHttp ?? false;
  if (!isObject(json)) fail("SSF 1.0 §7.2.3", "the configuration must be a JSON object");
  // §7.1 issuer REQUIRED, https, no query/fragment; §7.2.4 identical to the issuer used to retrieve it.
  checkHttpsUrl(json.issuer, "issuer", "SSF 1.0 §7.1", allowHttp, true);
  if (json.issuer !== issuer) {
    fail("SSF 1.0 §7.2.4", `"issuer" ${JSON.stringify(json.issuer)} is not identical to ${JSON.stringify(issuer)}`);
  }
  // §7.1 jwks_uri: "MUST be specified if the Transmitter intends to generate signed JWTs" (SETs are).
  if (!("jwks_uri" in json)) fail("SSF 1.0 §7.1", "jwks_uri is missing although the transmitter signs SETs");
  checkHttpsUrl(json.jwks_uri, "jwks_uri", "SSF 1.0 §7.1", allowHttp);
  for (const name of ENDPOINTS) {
    if (name in json) checkHttpsUrl(json[name], name, "SSF 1.0 §7.1", allowHttp);
  }
  if ("spec_version" in json && typeof json.spec_version !== "string") {
    fail("SSF 1.0 §7.1", "spec_version must be a string");
  }
  // §7.2.3: "Claims with zero elements MUST be omitted from the response."
  for (const name of ["delivery_methods_supported", "critical_subject_members", "authorization_schemes"]) {
    if (name in json && Array.isArray(json[name]) && (json[name] as unknown[]).length === 0) {
      fail("SSF 1.0 §7.2.3", `${name} has zero elements and MUST be omitted`);
    }
  }
  if ("delivery_methods_supported" in json) {
    checkStringArray(json.delivery_methods_supported, "delivery_methods_supported", "SSF 1.0 §7.1 / §6.1", true);
  }
  if ("critical_subject_members" in json) {
    checkStringArray(json.critical_subject_members, "critical_subject_members", "SSF 1.0 §7.1", false);
  }
  if ("authorization_schemes" in json) {
    const schemes = json.authorization_schemes;
    if (!Array.isArray(schemes)) fail("SSF 1.0 §7.1", "authorization_schemes must be an array of JSON objects");
    for (const scheme of schemes) {
      if (!isObject(scheme) || typeof scheme.spec_urn !== "string" || !isAbsoluteUri(scheme.spec_urn)) {
        fail("SSF 1.0 §7.1.1", `authorization scheme ${JSON.stringify(scheme)} lacks the REQUIRED spec_urn URN`);
      }
    }
  }
  if ("default_subjects" in json && json.default_subjects !== "ALL" && json.default_subjects !== "NONE") {
    fail("SSF 1.0 §7.1", `default_subjects must be "ALL" or "NONE", got ${JSON.stringify(json.default_subjects)}`);
  }

  if (options.interop) {
    const version = typeof json.spec_version === "string" ? /^(\d+)_(\d+)(.*)$/.exec(json.spec_version) : null;
    const major = Number(version?.[1] ?? "0");
    const minor = Number(version?.[2] ?? "0");
    const draft = (version?.[3] ?? "") !== "";
    if (!version || major < 1 || (major === 1 && minor === 0 && draft)) {
      fail(
        "CAEP Interop 1.0 §2.3.1",
        `spec_version MUST be present and "1_0" or greater, got ${String(json.spec_version)}`,
      );
    }
    if (!("delivery_methods_supported" in json))
      fail("CAEP Interop 1.0 §2.3.2", "delivery_methods_supported is missing");
    for (const [name, section] of [
      ["configuration_endpoint", "§2.3.4"],
      ["status_endpoint", "§2.3.5"],
      ["verification_endpoint", "§2.3.6"],
    ] as const) {
      if (!(name in json)) fail(`CAEP Interop 1.0 ${section}`, `${name} is missing`);
    }
    const schemes = Array.isArray(json.authorization_schemes) ? json.authorization_schemes : [];
    if (!schemes.some((scheme) => isObject(scheme) && scheme.spec_urn === "urn:ietf:rfc:6749")) {
      fail("CAEP Interop 1.0 §2.3.7", 'authorization_schemes MUST include {"spec_urn": "urn:ietf:rfc:6749"}');
    }
  }
}

/** JWK members that only private or symmetric keys carry (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2). */
const PRIVATE_JWK_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/**
 * Checks the document behind `jwks_uri`: an RFC 7517 §5 JWK Set of public verification keys (SSF 1.0
 * §7.1: "the signing key(s) the Receiver uses to validate signatures"), with distinct kids (§4.5).
 */
export function checkJwks(json: unknown): asserts json is JSONWebKeySet {
  if (!isObject(json) || !Array.isArray(json.keys)) fail("RFC 7517 §5", 'a JWK Set is an object with a "keys" array');
  if (json.keys.length === 0) fail("SSF 1.0 §7.1", "the JWK Set holds no signing key");
  const kids = new Set<string>();
  for (const key of json.keys) {
    if (!isObject(key) || typeof key.kty !== "string") fail("RFC 7517 §4.1", `JWK ${JSON.stringify(key)} lacks "kty"`);
    if (key.kty === "oct") fail("SSF 1.0 §7.1", "the published JWK Set holds a symmetric (oct) key");
    const leaked = PRIVATE_JWK_MEMBERS.filter((member) => member in key);
    if (leaked.length > 0) {
      fail("SSF 1.0 §7.1 / RFC 7518 §6", `a published key carries private members (${leaked.join(", ")})`);
    }
    if (typeof key.kid === "string") {
      if (kids.has(key.kid)) fail("RFC 7517 §4.5", `two keys of the set share kid ${key.kid}`);
      kids.add(key.kid);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Stream configuration and status checks
// ---------------------------------------------------------------------------------------------

export interface StreamConfigExpectations {
  /** The discovered issuer: `iss` MUST be identical (SSF §8.1.1, §8.1.1.1-§8.1.1.4). */
  issuer: string;
  /** The stream id the response must carry. */
  streamId?: string;
  /** Audience value(s) the receiver agreed (SSF §8.1.1.1.1): each must appear in `aud`. */
  audience?: string | string[];
  /** Members of `delivery` the receiver supplied: each must be echoed identically. */
  delivery?: Partial<DeliveryConfig>;
  /** The receiver's `events_requested` (Receiver-Supplied, §8.1.1): echoed as the same set. */
  eventsRequested?: string[] | null;
  /** Receiver-Supplied description: echoed; `null` means it must be absent (PUT without it, §8.1.1.4). */
  description?: string | null;
  /** Expected events_delivered (as a set), when the test knows it. */
  eventsDelivered?: string[];
  /** Delivery methods the transmitter advertised (SSF §7.1): `delivery.method` must be one of them. */
  deliveryMethodsSupported?: string[];
  /** Accept http: URLs for `iss` (SSF §8.1.1 requires https). */
  allowHttp?: boolean;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((value) => right.has(value));
}

/** RFC 3986 §2.3 unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~". */
const UNRESERVED = /^[A-Za-z0-9._~-]+$/;

/**
 * Asserts a stream configuration object per SSF 1.0 §8.1.1 (with §6.1 for `delivery`). Throws an
 * SsfConformanceError naming the section on any violation.
 */
export function checkStreamConfig(
  config: unknown,
  expect: StreamConfigExpectations,
): asserts config is StreamConfiguration {
  const S = "SSF 1.0 §8.1.1";
  if (!isObject(config)) fail(S, "a stream configuration is a JSON object");

  // stream_id: REQUIRED string; SHOULD use RFC 3986 §2.3 characters (enforced here).
  const streamId = config.stream_id;
  if (typeof streamId !== "string" || streamId.length === 0)
    fail(S, "stream_id is REQUIRED and must be a non-empty string");
  if (!UNRESERVED.test(streamId)) {
    fail(`${S} / RFC 3986 §2.3`, `stream_id ${JSON.stringify(streamId)} uses characters outside the unreserved set`);
  }
  if (expect.streamId !== undefined && streamId !== expect.streamId) {
    fail(S, `stream_id ${JSON.stringify(streamId)} is not the expected ${JSON.stringify(expect.streamId)}`);
  }

  // iss: REQUIRED, https URL without query/fragment, identical to the issuer (§8.1.1.1 "MUST check").
  checkHttpsUrl(config.iss, "iss", S, expect.allowHttp ?? false, true);
  if (config.iss !== expect.issuer) {
    fail(
      `${S} / §8.1.1.1`,
      `iss ${JSON.stringify(config.iss)} is not identical to the issuer ${JSON.stringify(expect.issuer)}`,
    );
  }

  // aud: REQUIRED string or array of strings.
  const aud = config.aud;
  const audList = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : null;
  if (!audList || audList.length === 0 || audList.some((value) => typeof value !== "string" || value.length === 0)) {
    fail(S, `aud is REQUIRED: a string or an array of strings, got ${JSON.stringify(aud)}`);
  }
  if (expect.audience !== undefined) {
    const wanted = typeof expect.audience === "string" ? [expect.audience] : expect.audience;
    const missing = wanted.filter((value) => !audList.includes(value));
    if (missing.length > 0) fail(`${S}.1.1`, `aud ${JSON.stringify(aud)} lacks the agreed ${JSON.stringify(missing)}`);
  }

  // events_*: arrays of URIs; events_delivered REQUIRED, a subset of supported ∩ requested.
  const supported =
    "events_supported" in config ? checkStringArray(config.events_supported, "events_supported", S, true) : null;
  const requested =
    "events_requested" in config ? checkStringArray(config.events_requested, "events_requested", S, true) : null;
  if (!("events_delivered" in config)) fail(S, "events_delivered is REQUIRED");
  const delivered = checkStringArray(config.events_delivered, "events_delivered", S, true);
  for (const uri of delivered) {
    if (supported && !supported.includes(uri)) fail(S, `events_delivered has ${uri}, which is not in events_supported`);
    if (requested && !requested.includes(uri)) fail(S, `events_delivered has ${uri}, which is not in events_requested`);
  }
  if (expect.eventsRequested !== undefined) {
    if (expect.eventsRequested === null) {
      if (requested) fail(`${S} / §8.1.1.4`, "events_requested should be absent (not supplied by the receiver)");
    } else if (!requested || !sameSet(requested, expect.eventsRequested)) {
      fail(
        S,
        `events_requested ${JSON.stringify(requested)} does not echo the requested ${JSON.stringify(expect.eventsRequested)}`,
      );
    }
  }
  if (expect.eventsDelivered !== undefined && !sameSet(delivered, expect.eventsDelivered)) {
    fail(S, `events_delivered ${JSON.stringify(delivered)} is not ${JSON.stringify(expect.eventsDelivered)}`);
  }

  // delivery: REQUIRED object, `method` a URI (§6.1); push/poll need an endpoint_url.
  const delivery = config.delivery;
  if (!isObject(delivery)) fail(S, "delivery is REQUIRED and must be a JSON object");
  if (!isAbsoluteUri(delivery.method))
    fail(`${S} / §6.1`, `delivery.method must be a URI, got ${JSON.stringify(delivery.method)}`);
  if (delivery.method === PUSH_METHOD || delivery.method === POLL_METHOD) {
    const section = delivery.method === PUSH_METHOD ? "SSF 1.0 §6.1.1" : "SSF 1.0 §6.1.2 / §8.1.1.1";
    if (typeof delivery.endpoint_url !== "string")
      fail(section, `delivery.endpoint_url is missing for ${delivery.method}`);
    try {
      new URL(delivery.endpoint_url);
    } catch {
      fail(section, `delivery.endpoint_url ${JSON.stringify(delivery.endpoint_url)} is not a URL`);
    }
  }
  if (expect.deliveryMethodsSupported && !expect.deliveryMethodsSupported.includes(delivery.method)) {
    fail("SSF 1.0 §7.1", `delivery.method ${delivery.method} is not in delivery_methods_supported`);
  }
  for (const [member, value] of Object.entries(expect.delivery ?? {})) {
    if (delivery[member] !== value) {
      fail(
        member === "endpoint_url" ? "SSF 1.0 §6.1.1 / §8.1.1" : S,
        `delivery.${member} ${JSON.stringify(delivery[member])} does not echo ${JSON.stringify(value)}`,
      );
    }
  }

  // Optional members.
  if ("min_verification_interval" in config) {
    const v = config.min_verification_interval;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0) fail(S, "min_verification_interval must be an integer");
  }
  if ("description" in config && typeof config.description !== "string") fail(S, "description must be a string");
  if ("inactivity_timeout" in config) {
    // Same syntax as RFC 6749 §A.14 expires_in: 1*DIGIT.
    const v = config.inactivity_timeout;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
      fail(`${S} / RFC 6749 §A.14`, "inactivity_timeout must be a non-negative integer (seconds)");
    }
  }
  if (expect.description !== undefined) {
    if (expect.description === null) {
      if ("description" in config)
        fail(`${S}.4`, "description must be absent: a missing Receiver-Supplied property is deleted");
    } else if (config.description !== expect.description) {
      fail(S, `description ${JSON.stringify(config.description)} is not ${JSON.stringify(expect.description)}`);
    }
  }
}

/** SSF 1.0 §8.1.1.2: a GET without stream_id returns a list (possibly empty) of stream configurations. */
export function checkStreamConfigList(
  body: unknown,
  expect: Omit<StreamConfigExpectations, "streamId"> & { streamIds?: string[] },
): asserts body is StreamConfiguration[] {
  if (!Array.isArray(body))
    fail("SSF 1.0 §8.1.1.2", "without stream_id the transmitter MUST return a list (JSON array)");
  const { streamIds, ...rest } = expect;
  for (const config of body) checkStreamConfig(config, rest);
  if (streamIds) {
    const ids = (body as StreamConfiguration[]).map((config) => config.stream_id);
    if (!sameSet(ids, streamIds))
      fail("SSF 1.0 §8.1.1.2", `the list holds ${JSON.stringify(ids)}, not ${JSON.stringify(streamIds)}`);
  }
}

/** SSF 1.0 §8.1.2.1 / §8.1.2.2: a status object. */
export function checkStreamStatus(
  body: unknown,
  expect: { streamId: string; status?: StreamStatus["status"]; reason?: string | null },
): asserts body is StreamStatus {
  const S = "SSF 1.0 §8.1.2.1";
  if (!isObject(body)) fail(S, "a stream status is a JSON object");
  if (body.stream_id !== expect.streamId) {
    fail(S, `stream_id ${JSON.stringify(body.stream_id)} is not ${JSON.stringify(expect.streamId)}`);
  }
  if (body.status !== "enabled" && body.status !== "paused" && body.status !== "disabled") {
    fail(S, `status MUST be enabled, paused or disabled, got ${JSON.stringify(body.status)}`);
  }
  if (expect.status !== undefined && body.status !== expect.status) {
    fail(S, `status ${JSON.stringify(body.status)} is not ${JSON.stringify(expect.status)}`);
  }
  if ("reason" in body && typeof body.reason !== "string") fail(S, "reason must be a string");
  if (expect.reason !== undefined) {
    if (expect.reason === null ? "reason" in body : body.reason !== expect.reason) {
      fail(S, `reason ${JSON.stringify(body.reason)} is not ${JSON.stringify(expect.reason)}`);
    }
  }
}

/**
 * A successful management answer: the operation's status, a JSON body with Content-Type
 * application/json, or an empty body (SSF 1.0 §8.1.1.1-§8.1.4.2).
 */
export function checkManagementSuccess(operation: ManagementOperation, response: ManagementResponse): void {
  const rule = SSF_SUCCESS_STATUS[operation];
  if (response.status !== rule.status) {
    fail(
      rule.section,
      `${operation} answered ${response.status}, expected ${rule.status} (${response.text.slice(0, 200)})`,
    );
  }
  if (rule.body === "empty") {
    if (response.text !== "")
      fail(rule.section, `${operation} must answer with an empty body, got ${response.text.slice(0, 200)}`);
    return;
  }
  if (mediaType(response.headers) !== "application/json") {
    fail(
      rule.section,
      `${operation} must answer JSON (Content-Type application/json), got ${response.headers.get("Content-Type")}`,
    );
  }
  if (typeof response.body !== "object" || response.body === null) {
    fail(rule.section, `${operation} must answer a JSON object or list, got ${response.text.slice(0, 200)}`);
  }
}

/**
 * An error answer: exactly `status`, which the operation's table lists (unless `unlisted`), and for
 * 401 the WWW-Authenticate header RFC 9110 §15.5.2 requires.
 */
export function checkManagementError(
  operation: ManagementOperation,
  response: ManagementResponse,
  status: number,
  options: { unlisted?: boolean } = {},
): void {
  const section = SSF_SUCCESS_STATUS[operation].section;
  if (!options.unlisted && !SSF_ERROR_STATUSES[operation].includes(status)) {
    fail(
      section,
      `${status} is not among the statuses listed for ${operation} (${SSF_ERROR_STATUSES[operation].join(", ")})`,
    );
  }
  if (response.status !== status) {
    fail(section, `${operation} answered ${response.status}, expected ${status} (${response.text.slice(0, 200)})`);
  }
  if (status === 401 && !response.headers.get("WWW-Authenticate")) {
    fail("RFC 9110 §15.5.2 / RFC 6750 §3", "a 401 answer MUST carry a WWW-Authenticate header");
  }
}

// ---------------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------------

export interface SsfReferenceReceiverOptions {
  issuer: string;
  token: string;
  fetch: FetchLike;
  /** Accept http: URLs for the issuer and endpoints (SSF §7.1 requires https). Default false. */
  allowHttp?: boolean;
}

export class SsfReferenceReceiver {
  readonly issuer: string;
  readonly token: string;
  readonly allowHttp: boolean;
  private readonly fetchImpl: FetchLike;
  private discovered: TransmitterMetadata | null = null;

  constructor(options: SsfReferenceReceiverOptions) {
    this.issuer = options.issuer;
    this.token = options.token;
    this.fetchImpl = options.fetch;
    this.allowHttp = options.allowHttp ?? false;
  }

  /** The metadata from discover(); throws before it. */
  get metadata(): TransmitterMetadata {
    if (!this.discovered) throw new Error("call discover() first: every endpoint comes from the metadata (SSF §7)");
    return this.discovered;
  }

  /**
   * SSF 1.0 §7.2: GET the well-known configuration, checks §7.2.3 (200, application/json, an object)
   * and §7.1 / §7.2.4 (checkTransmitterMetadata), and keeps the metadata for all later calls.
   */
  async discover(options: { interop?: boolean } = {}): Promise<TransmitterMetadata> {
    const url = wellKnownUrl(this.issuer);
    const response = await this.fetchImpl(new Request(url, { method: "GET", headers: { Accept: "application/json" } }));
    const text = await response.text();
    if (response.status !== 200) fail("SSF 1.0 §7.2.3", `GET ${url} answered ${response.status}, expected 200 OK`);
    if (mediaType(response.headers) !== "application/json") {
      fail(
        "SSF 1.0 §7.2 / §7.2.3",
        `the configuration must be served as application/json, got ${response.headers.get("Content-Type")}`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      fail("SSF 1.0 §7.2.3", "the configuration is not JSON");
    }
    checkTransmitterMetadata(json, this.issuer, { allowHttp: this.allowHttp, interop: options.interop ?? false });
    this.discovered = json;
    return json;
  }

  /** GET jwks_uri (from the metadata) and check it as an RFC 7517 §5 set of public keys. */
  async jwks(): Promise<JSONWebKeySet> {
    const url = this.metadata.jwks_uri;
    const response = await this.fetchImpl(
      new Request(url, { method: "GET", headers: { Accept: "application/jwk-set+json, application/json" } }),
    );
    const text = await response.text();
    if (response.status !== 200) fail("SSF 1.0 §7.1", `GET jwks_uri ${url} answered ${response.status}`);
    const type = mediaType(response.headers);
    if (type !== "application/json" && type !== "application/jwk-set+json") {
      fail("RFC 7517 §8.5.1", `jwks_uri must be served as JSON (application/jwk-set+json), got ${type || "nothing"}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      fail("RFC 7517 §5", "the JWK Set is not JSON");
    }
    checkJwks(json);
    return json;
  }

  /** The URL of a management endpoint, from the metadata only (SSF §7.1, §8.1). */
  endpoint(name: EndpointName): string {
    const url = this.metadata[name];
    if (typeof url !== "string") fail("SSF 1.0 §7.1", `the transmitter's metadata has no ${name}`);
    return url;
  }

  /**
   * One management request: `Authorization: Bearer <token>` (SSF §8 "standard HTTP authentication",
   * RFC 6750 §2.1), `Accept: application/json`, a JSON body when given.
   */
  async send(
    name: EndpointName,
    method: string,
    options: SendOptions & { body?: unknown } = {},
  ): Promise<ManagementResponse> {
    const url = new URL(this.endpoint(name));
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
    const headers = new Headers({ Accept: "application/json" });
    const token = options.token === undefined ? this.token : options.token;
    if (options.authorization !== undefined) headers.set("Authorization", options.authorization);
    else if (token !== null) headers.set("Authorization", `Bearer ${token}`);
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) {
      const contentType = options.contentType === undefined ? "application/json" : options.contentType;
      if (contentType !== null) headers.set("Content-Type", contentType);
    }
    const init: RequestInit = body === undefined ? { method, headers } : { method, headers, body };
    const response = await this.fetchImpl(new Request(url.toString(), init));
    const text = await response.text();
    let parsed: unknown = null;
    if (text !== "") {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: response.status, body: parsed, headers: response.headers, text };
  }

  /** SSF 1.0 §8.1.1.1: POST to the Configuration Endpoint. */
  createStream(body: CreateStreamRequest, options: SendOptions = {}): Promise<ManagementResponse> {
    return this.send("configuration_endpoint", "POST", { ...options, body });
  }

  /** SSF 1.0 §8.1.1.2: GET the Configuration Endpoint, with ?stream_id= or (no id) the list. */
  readStream(streamId?: string, options: SendOptions = {}): Promise<ManagementResponse> {
    const query = streamId === undefined ? options.query : { ...options.query, stream_id: streamId };
    return this.send("configuration_endpoint", "GET", { ...options, ...(query ? { query } : {}) });
  }

  /** SSF 1.0 §8.1.1.3: PATCH the Configuration Endpoint. */
  updateStream(body: UpdateStreamRequest, options: SendOptions = {}): Promise<ManagementResponse> {
    return this.send("configuration_endpoint", "PATCH", { ...options, body });
  }

  /** SSF 1.0 §8.1.1.4: PUT the Configuration Endpoint. */
  replaceStream(body: UpdateStreamRequest, options: SendOptions = {}): Promise<ManagementResponse> {
    return this.send("configuration_endpoint", "PUT", { ...options, body });
  }

  /** SSF 1.0 §8.1.1.5: DELETE the Configuration Endpoint with ?stream_id=. */
  deleteStream(streamId: string, options: SendOptions = {}): Promise<ManagementResponse> {
    return this.send("configuration_endpoint", "DELETE", {
      ...options,
      query: { ...options.query, stream_id: streamId },
    });
  }

  /** SSF 1.0 §8.1.2.1: GET the Status Endpoint with ?stream_id=. */
  readStatus(streamId: string, options: SendOptions = {}): Promise<ManagementResponse> {
    return this.send("status_endpoint", "GET", { ...options, query: { ...options.query, stream_id: streamId } });
  }

  /** SSF 1.0 §8.1.2.2: POST to the Status Endpoint. */
  updateStatus(body: UpdateStatusRequest, options: SendOptions = {}): Promise<ManagementResponse> {
    return this.send("status_endpoint", "POST", { ...options, body });
  }

  /** SSF 1.0 §8.1.3.2: POST to the Add Subject Endpoint. */
  addSubject(body: SubjectRequest, options: SendOptions = {}): Promise<ManagementResponse> {
    return this.send("add_subject_endpoint", "POST", { ...options, body });
  }

  /** SSF 1.0 §8.1.3.3: POST to the Remove Subject Endpoint. */
  removeSubject(body: SubjectRequest, options: SendOptions = {}): Promise<ManagementResponse> {
    return this.send("remove_subject_endpoint", "POST", { ...options, body });
  }

  /** SSF 1.0 §8.1.4.2: POST to the Verification Endpoint. */
  verify(body: VerificationRequest, options: SendOptions = {}): Promise<ManagementResponse> {
    return this.send("verification_endpoint", "POST", { ...options, body });
  }

  /**
   * checkStreamConfig with this receiver's issuer, and (once discovered) the advertised
   * delivery_methods_supported. Returns nothing; throws SsfConformanceError.
   */
  checkStreamConfig(config: unknown, expect: Omit<StreamConfigExpectations, "issuer"> = {}): void {
    const methods = this.discovered?.delivery_methods_supported;
    checkStreamConfig(config, {
      ...(methods ? { deliveryMethodsSupported: methods } : {}),
      allowHttp: this.allowHttp,
      ...expect,
      issuer: this.issuer,
    });
  }
}
