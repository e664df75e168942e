/**
 * @module
 * The DBSC headers on the wire: building `Secure-Session-Registration` and
 * `Secure-Session-Challenge` in structured-field syntax, and reading `Secure-Session-Response`,
 * `Sec-Secure-Session-Id` (quoted as the spec says, or raw as Chrome sends them) and
 * `Secure-Session-Skipped`. Pure functions; a malformed header is a refusal, never an exception.
 */
import {
  DBSC_ALGORITHMS,
  type DbscAlgorithm,
  SKIPPED_REASONS,
  type SkippedReason,
  type SkippedSession,
} from "../../../../client-sdk/protocol/device-binding";
import {
  type Parameters,
  parseItemList,
  parseStringItem,
  serializeInnerList,
  serializeItem,
  Token,
} from "./structured-fields";

export type HeaderResult<T> = { ok: true; value: T } | { ok: false; reason: "missing" | "malformed" };

/** Longest header value we read (a proof with an RSA-4096 `jwk` stays well under it). */
const MAX_VALUE = 8_192;
const JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** A session id as it can appear unquoted: visible ASCII without quotes, backslashes, commas or `;`. */
const RAW_ID = /^[!#-+\--:<-[\]-~]+$/;

export interface RegistrationHeaderOptions {
  /** Where the browser POSTs the registration proof (same-site, https). */
  path: string;
  /** Always send one: without it Chrome registers without a proof, and we never learn the key. */
  challenge: string;
  /** An opaque value the proof must echo in its `authorization` claim. */
  authorization?: string;
  /** Offered algorithms, preferred first; default ES256 then RS256. */
  algorithms?: readonly DbscAlgorithm[];
}

/** `Secure-Session-Registration: (ES256 RS256);path="…";challenge="…"[;authorization="…"]`. */
export function registrationHeader(options: RegistrationHeaderOptions): string {
  const algorithms = options.algorithms ?? DBSC_ALGORITHMS;
  if (algorithms.length === 0 || algorithms.some((a) => !DBSC_ALGORITHMS.includes(a))) {
    throw new TypeError("registration: algorithms must be a non-empty subset of ES256, RS256");
  }
  if (!options.challenge) throw new TypeError("registration: a challenge is required");
  const params: [string, string][] = [
    ["path", options.path],
    ["challenge", options.challenge],
  ];
  if (options.authorization !== undefined) params.push(["authorization", options.authorization]);
  return serializeInnerList(
    algorithms.map((a) => new Token(a)),
    params,
  );
}

/** `Secure-Session-Challenge: "<challenge>";id="<session id>"` (one member; join several with `, `). */
export function challengeHeader(challenge: string, sessionId: string): string {
  const params: Parameters = [["id", sessionId]];
  return serializeItem(challenge, params);
}

/**
 * A header the spec types as an sf-string but Chrome sends raw: a quoted value is parsed as an
 * sf-string (escapes undone), an unquoted one is taken as it is when it holds no quote, backslash,
 * comma, semicolon, space or control character.
 */
export function readLooseString(value: string | null): HeaderResult<string> {
  if (value === null) return { ok: false, reason: "missing" };
  const text = value.trim();
  if (text === "") return { ok: false, reason: "missing" };
  if (text.length > MAX_VALUE) return { ok: false, reason: "malformed" };
  if (text.startsWith('"')) {
    const parsed = parseStringItem(text);
    return parsed ? { ok: true, value: parsed } : { ok: false, reason: "malformed" };
  }
  return RAW_ID.test(text) ? { ok: true, value: text } : { ok: false, reason: "malformed" };
}

/** `Secure-Session-Response`: the compact JWS, in either form. */
export function readSessionResponse(value: string | null): HeaderResult<string> {
  const read = readLooseString(value);
  if (!read.ok) return read;
  return JWS.test(read.value) ? read : { ok: false, reason: "malformed" };
}

/** `Sec-Secure-Session-Id`: the session id we issued, in either form (at most 256 characters). */
export function readSessionId(value: string | null): HeaderResult<string> {
  const read = readLooseString(value);
  if (!read.ok) return read;
  return read.value.length <= 256 && RAW_ID.test(read.value) ? read : { ok: false, reason: "malformed" };
}

/**
 * `Secure-Session-Skipped: unreachable;session_identifier="s1", quota_exceeded;session_identifier="s2"`.
 * A member whose item is not a token, or whose `session_identifier` is not a string, is dropped;
 * an unknown token is kept as `"unknown"` (the list may grow).
 */
export function readSkipped(value: string | null): HeaderResult<SkippedSession[]> {
  if (value === null || value.trim() === "") return { ok: false, reason: "missing" };
  if (value.length > MAX_VALUE) return { ok: false, reason: "malformed" };
  const members = parseItemList(value);
  if (!members) return { ok: false, reason: "malformed" };
  const out: SkippedSession[] = [];
  for (const { item, params } of members) {
    if (!(item instanceof Token)) continue;
    const id = params.get("session_identifier");
    if (id !== undefined && typeof id !== "string") continue;
    const known = (SKIPPED_REASONS as readonly string[]).includes(item.value);
    out.push(
      known
        ? { reason: item.value as SkippedReason, sessionIdentifier: id ?? null }
        : { reason: "unknown", token: item.value, sessionIdentifier: id ?? null },
    );
  }
  return { ok: true, value: out };
}
