/**
 * @module
 * What the device-binding door tells a timeline, worked out from the request: the reason a
 * browser's `Secure-Session-Skipped` gives for one session, and the name a refused refresh proof
 * gets. Pure: a malformed header, or a member naming another session, is no reason at all (never an
 * exception), and a name never carries what the request sent, only one of a few known words.
 */
import type { DeviceRefreshFailure, SkippedSession } from "../../../../client-sdk/protocol/device-binding";
import { readSkipped } from "./headers";
import type { ProofRefusal } from "./proof";

/** Why the browser skipped this session's refresh (the first member naming it), or null. */
export function skippedFor(header: string | null, sessionId: string): SkippedSession["reason"] | null {
  const read = readSkipped(header);
  if (!read.ok) return null;
  return read.value.find((member) => member.sessionIdentifier === sessionId)?.reason ?? null;
}

/** A refused refresh proof (or an unreadable `Secure-Session-Response`), as the timeline names it. */
export function refreshFailureOf(refusal: ProofRefusal): DeviceRefreshFailure {
  switch (refusal) {
    case "bad_signature":
    case "alg_mismatch":
    case "unsupported_alg":
    case "bad_key":
    case "missing_key":
      return "bad_signature";
    case "unknown_challenge":
      return "unknown_challenge";
    default:
      return "malformed";
  }
}
