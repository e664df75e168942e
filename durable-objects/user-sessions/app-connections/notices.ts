/**
 * @module
 * Which timeline events an app hears of, and the notices they become: a revocation
 * (`session.revoked`, `session.signed_out`) or a bound session used without its device's proof
 * (`session.refused` with `device_proof_missing`). A notice carries the event's id, the ended ids
 * (split into chunks of `MAX_NOTICE_SESSIONS`), the reason and the actor's kind only: never an IP,
 * a device, a place or an actor's label. Pure functions.
 */
import { MAX_NOTICE_SESSIONS, type SessionsEndedNotice } from "../../../client-sdk/protocol/app-connections";
import type { RevocationReason } from "../../../client-sdk/protocol/lifecycle";
import type { RevocationActor, SecurityEvent, SecurityEventType } from "../../../client-sdk/protocol/security-record";

/** What an event must say to concern apps (a `NewEvent` before it is stored, or a stored one). */
interface EventShape {
  type: SecurityEventType;
  detail?: Readonly<Record<string, string | number | boolean | null>>;
}

/** True for the events apps hear of (see module doc); every other event stays home. */
export function concernsApps(event: EventShape): boolean {
  if (event.type === "session.revoked" || event.type === "session.signed_out") return true;
  return event.type === "session.refused" && event.detail?.reason === "device_proof_missing";
}

/**
 * The notices of a stored event, in order; empty when it concerns no app or names no session.
 * `fallbackIds` answers for an event stored without `sessionIds` (its receipt's ids). One chunk
 * keeps the event's id; chunks of a larger revocation are `<event id>:<n>` (n from 1), so each
 * notice's id stays a dedupe key of its own.
 */
export function noticesOf(event: SecurityEvent, fallbackIds: () => readonly string[] | null): SessionsEndedNotice[] {
  if (!concernsApps(event)) return [];
  const ids = event.sessionIds ?? (event.sessionId ? [event.sessionId] : fallbackIds()) ?? [];
  if (ids.length === 0) return [];
  const proofMissing = event.type === "session.refused";
  const reason = proofMissing ? "device_proof_missing" : (String(event.detail.reason ?? "revoked") as RevocationReason);
  const actor: RevocationActor["kind"] | null = proofMissing ? null : (event.actor?.kind ?? null);
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += MAX_NOTICE_SESSIONS) chunks.push(ids.slice(i, i + MAX_NOTICE_SESSIONS));
  return chunks.map((sessionIds, i) => ({
    id: chunks.length === 1 ? event.id : `${event.id}:${i + 1}`,
    userId: event.userId,
    sessionIds,
    kind: proofMissing ? "device_proof_missing" : "revoked",
    reason,
    actor,
    at: event.at,
  }));
}
