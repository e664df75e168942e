/**
 * @module
 * Feature contract — app connections (issue 31): how the auth worker tells a consuming app that
 * sessions ended, so the app closes the live connections (WebSockets, event streams) it accepted
 * under them. The auth worker delivers a `SessionsEndedNotice` from the user's session object's
 * outbox (at least once, retried) over a service binding the team configures (`apps` option) to
 * the app's `GatehouseRevocations` entrypoint (`RevocationReceiver`); the app's SDK piece
 * (`client-sdk/app-connections/`) routes it to the objects holding those sessions' connections and
 * closes them with the codes below. Types and constants only; no IP, device or place leaves home.
 */
import type { RevocationReason } from "./lifecycle";
import type { RevocationActor } from "./security-record";

/** Why the sessions' connections end: revoked (final), or a device-bound session used without its proof. */
export type SessionsEndedKind = "revoked" | "device_proof_missing";

/** What the auth worker sends an app when sessions end. Closing twice is harmless: `id` dedupes. */
export interface SessionsEndedNotice {
  /** The timeline event's id (the same as the webhook's `Gatehouse-Event-Id`): a dedupe key. */
  id: string;
  userId: string;
  /** The public session ids whose connections close; one or more, never empty. */
  sessionIds: string[];
  kind: SessionsEndedKind;
  /** The revocation's reason (`RevocationReason`), or `device_proof_missing`. */
  reason: RevocationReason | "device_proof_missing";
  /** Who acted, by kind only (labels such as admin token names stay home); null when unknown. */
  actor: RevocationActor["kind"] | null;
  /** When the sessions ended, ms since the epoch. */
  at: number;
}

/** The app's entrypoint the auth worker's service binding points at. */
export interface RevocationReceiver {
  /** Closes every connection of `notice.sessionIds`; resolves once they are closed (else throws: retried). */
  sessionsEnded(notice: SessionsEndedNotice): Promise<{ closed: number }>;
}

/** Close codes (RFC 6455 §7.4.2 private range 4000–4999), the same numbers as our own tabs. */
export const APP_CLOSE = {
  /** The session was revoked: final, do not reconnect with it. */
  revoked: { code: 4001, reason: "session revoked" },
  /** Refused at accept: the session is not (or no longer) active. */
  inactive: { code: 4003, reason: "session inactive" },
  /** A device-bound session was used without its device's proof: reconnect (only the real device passes). */
  deviceProofMissing: { code: 4004, reason: "device proof required" },
} as const;

/** The WebSocket tag naming the session a connection was accepted under (hibernation keeps tags). */
export const SESSION_TAG_PREFIX = "gh:s:";

/** Largest number of session ids one notice may carry (a revocation of more is split). */
export const MAX_NOTICE_SESSIONS = 1000;
