/**
 * @module
 * What a verified SET does here: CAEP `session-revoked` ends the named session (a `complex` subject
 * with a session) or all of the person's sessions; CAEP `credential-change`, RISC `account-disabled`
 * and `credential-compromise` end all of them. The actor is `{ kind: "provider", label: <issuer
 * host> }`, so the timeline's `session.revoked` entry says who asked. An unknown subject or event
 * type changes nothing (the caller still acknowledges it). Store failures propagate (the caller
 * lets the transmitter retry).
 */
import type { RevocationActor } from "../../../../client-sdk/protocol/security-record";
import { SSF_EVENTS } from "../../../../client-sdk/protocol/shared-signals";
import type { SessionManager } from "../../session/session-manager";
import type { ResolvedTransmitter } from "./options";
import { matchSubject, subjectOf } from "./subjects";

/** What one event of a SET came to (logged; never personal data). */
export type SignalOutcome = "revoked" | "no_session" | "unknown_subject" | "unknown_event" | "verified";

/** Event types that end every session of the person. */
const ENDS_ALL: ReadonlySet<string> = new Set([
  SSF_EVENTS.credentialChange,
  SSF_EVENTS.accountDisabled,
  SSF_EVENTS.credentialCompromise,
]);

export interface ActedEvent {
  event: string;
  outcome: SignalOutcome;
  /** Sessions ended. */
  revoked: number;
}

export async function actOn(
  set: { sub_id?: unknown; events: Record<string, Record<string, unknown>> },
  transmitter: ResolvedTransmitter,
  sessions: SessionManager,
): Promise<ActedEvent[]> {
  const actor: RevocationActor = { kind: "provider", label: transmitter.label };
  const acted: ActedEvent[] = [];
  for (const [event, body] of Object.entries(set.events)) {
    if (event === SSF_EVENTS.verification) {
      acted.push({ event, outcome: "verified", revoked: 0 });
      continue;
    }
    if (event !== SSF_EVENTS.sessionRevoked && !ENDS_ALL.has(event)) {
      acted.push({ event, outcome: "unknown_event", revoked: 0 });
      continue;
    }
    const subject = await matchSubject(subjectOf(set, body), transmitter, sessions.directory);
    if (!subject) {
      acted.push({ event, outcome: "unknown_subject", revoked: 0 });
      continue;
    }
    // Only session-revoked may narrow to one session; the others are about the account.
    if (event === SSF_EVENTS.sessionRevoked && subject.sessionId !== null) {
      const result = await sessions.revokeSessionOf(subject.userId, subject.sessionId, "revoked", actor);
      const revoked = result?.revoked ?? 0;
      acted.push({ event, outcome: revoked > 0 ? "revoked" : "no_session", revoked });
      continue;
    }
    const result = await sessions.revokeUser(subject.userId, actor);
    const { revoked } = result;
    acted.push({ event, outcome: revoked > 0 ? "revoked" : "no_session", revoked });
  }
  return acted;
}
