/**
 * @module
 * What a verified SET does here: CAEP `session-revoked` ends the named session (a `complex` subject
 * with a session) or all of the person's sessions; CAEP `credential-change`, RISC `account-disabled`
 * and `credential-compromise` end all of them. The actor is `{ kind: "provider", label: <issuer
 * host> }`, so the timeline's `session.revoked` entry says who asked; every event about a known
 * person also leaves a `signal.received` entry (issuer, event, outcome). An unknown subject or event
 * type changes nothing (the caller still acknowledges it). Store failures propagate (the caller
 * lets the transmitter retry); timeline writes never fail the call.
 */
import type { RevocationActor, SignalOutcome } from "../../../../client-sdk/protocol/security-record";
import { SSF_EVENTS } from "../../../../client-sdk/protocol/shared-signals";
import { sha256Hex } from "../../crypto";
import type { SessionManager } from "../../session/session-manager";
import type { ResolvedTransmitter } from "./options";
import { matchSubject, subjectOf } from "./subjects";

/** What one event of a SET came to (logged; never personal data). `unknown_subject`: nobody here. */
export type ActOutcome = SignalOutcome | "unknown_subject";

/** Event types that end every session of the person. */
const ENDS_ALL: ReadonlySet<string> = new Set([
  SSF_EVENTS.credentialChange,
  SSF_EVENTS.accountDisabled,
  SSF_EVENTS.credentialCompromise,
]);

export interface ActedEvent {
  event: string;
  outcome: ActOutcome;
  /** Sessions ended. */
  revoked: number;
}

type Received = { iss: string; jti: string; sub_id?: unknown; events: Record<string, Record<string, unknown>> };

export async function actOn(
  set: Received,
  transmitter: ResolvedTransmitter,
  sessions: SessionManager,
): Promise<ActedEvent[]> {
  const actor: RevocationActor = { kind: "provider", label: transmitter.label };
  const setId = await setIdOf(set);
  const acted: ActedEvent[] = [];
  for (const [event, body] of Object.entries(set.events)) {
    const subject = await matchSubject(subjectOf(set, body), transmitter, sessions.directory);
    let outcome: ActOutcome;
    let revoked = 0;
    if (event === SSF_EVENTS.verification) {
      outcome = "verified";
    } else if (event !== SSF_EVENTS.sessionRevoked && !ENDS_ALL.has(event)) {
      outcome = "unknown_event";
    } else if (!subject) {
      outcome = "unknown_subject";
    } else if (event === SSF_EVENTS.sessionRevoked && subject.sessionId !== null) {
      // Only session-revoked may narrow to one session; the others are about the account.
      const result = await sessions.revokeSessionOf(subject.userId, subject.sessionId, "revoked", actor);
      revoked = result?.revoked ?? 0;
      outcome = revoked > 0 ? "revoked" : "no_session";
    } else {
      revoked = (await sessions.revokeUser(subject.userId, actor)).revoked;
      outcome = revoked > 0 ? "revoked" : "no_session";
    }
    if (subject && outcome !== "unknown_subject") {
      await sessions.recordSignal(subject.userId, transmitter.label, event, outcome, setId);
    }
    acted.push({ event, outcome, revoked });
  }
  return acted;
}

/**
 * A refused SET its transmitter did sign (a replayed copy, one too old, one addressed to another
 * audience): still told to the timeline of each person it names, once per SET and outcome.
 */
export async function recordRefusal(
  set: Received,
  transmitter: ResolvedTransmitter,
  sessions: SessionManager,
  outcome: "replayed" | "expired" | "wrong_audience",
): Promise<void> {
  const setId = await setIdOf(set);
  for (const [event, body] of Object.entries(set.events)) {
    const subject = await matchSubject(subjectOf(set, body), transmitter, sessions.directory);
    if (subject) await sessions.recordSignal(subject.userId, transmitter.label, event, outcome, setId);
  }
}

/** The SET's id on a timeline: a digest of `iss` and `jti` (never the raw `jti`, which the transmitter chose). */
async function setIdOf(set: { iss: string; jti: string }): Promise<string> {
  // The JSON of the pair (as the replay key): a `jti` holding a separator cannot pose as another SET.
  return (await sha256Hex(JSON.stringify([set.iss, set.jti]))).slice(0, 32);
}
