/**
 * @module
 * Who a verified SET is about (RFC 9493 subject identifiers, SSF 1.0 `sub_id`): a person by `email`
 * (the email directory: only people who signed in here) or by `iss_sub` when its `iss` is the
 * transmitter's `issSubIssuer` (WorkOS user ids are ours); a `complex` subject adds one session by
 * its `opaque` id. Anything else is unknown: acknowledged, never acted on. Never throws on input.
 */
import type { SubjectIdentifier } from "../../../../client-sdk/protocol/shared-signals";
import type { UserDirectory } from "../../session/user-directory";
import type { ResolvedTransmitter } from "./options";

export interface MatchedSubject {
  userId: string;
  /** A session named by the subject (a `complex` subject's `session`), else null: the whole user. */
  sessionId: string | null;
}

/** The subject of a SET: `sub_id` at the top level (SSF 1.0), else inside the event (CAEP's `subject`). */
export function subjectOf(set: { sub_id?: unknown }, event: unknown): unknown {
  return set.sub_id ?? (isObject(event) ? event.subject : undefined);
}

export async function matchSubject(
  subject: unknown,
  transmitter: ResolvedTransmitter,
  directory: UserDirectory,
): Promise<MatchedSubject | null> {
  if (!isObject(subject)) return null;
  const s = subject as Partial<SubjectIdentifier> & Record<string, unknown>;
  if (s.format === "complex") {
    const user = isObject(s.user) ? await userOf(s.user, transmitter, directory) : null;
    if (!user) return null;
    const session = isObject(s.session) ? sessionIdOf(s.session) : null;
    // A complex subject naming a session we cannot read matches no session (never the whole user).
    if (isObject(s.session) && session === null) return null;
    return { userId: user, sessionId: session };
  }
  const user = await userOf(s, transmitter, directory);
  return user ? { userId: user, sessionId: null } : null;
}

async function userOf(
  s: Record<string, unknown>,
  transmitter: ResolvedTransmitter,
  directory: UserDirectory,
): Promise<string | null> {
  if (s.format === "email" && typeof s.email === "string" && s.email.length > 0 && s.email.length <= 320) {
    return directory.find(s.email);
  }
  if (s.format === "iss_sub" && typeof s.iss === "string" && typeof s.sub === "string") {
    if (transmitter.issSubIssuer === null || s.iss !== transmitter.issSubIssuer) return null;
    return s.sub.length > 0 && s.sub.length <= 256 ? s.sub : null;
  }
  return null;
}

function sessionIdOf(s: Record<string, unknown>): string | null {
  return s.format === "opaque" && typeof s.id === "string" && s.id.length > 0 && s.id.length <= 256 ? s.id : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
