/**
 * @module
 * Device binding (issue 30, DBSC) in the session object: the public key each bound session proved
 * it holds (`bound_keys`, one key per session, never replaced) and the challenges a proof must sign
 * (`binding_challenges`: only a SHA-256 of each is kept, bound to one session and one purpose,
 * single-use, short-lived on the object clock). Storage only: the proof is verified by the worker's
 * door (workers/auth/session/device-binding/) before a challenge is spent or a key bound. A revoked
 * session's rows go in the revocation's own transaction (`unbindSessions`); the alarm's purge drops
 * expired challenges and keys whose session row is gone. A new binding is told to the timeline
 * (`session.device_bound`) through the callback features.ts hands in; it records nothing itself.
 */
import { sha256Hex } from "../../client-sdk/core/digest";
import { defaultRandom, type RandomSource, randomToken } from "../../client-sdk/core/encoding";
import type {
  BoundKey,
  ChallengePurpose,
  DbscAlgorithm,
  DbscPublicJwk,
} from "../../client-sdk/protocol/device-binding";
import { objectNow } from "../clock";

/** How long an issued challenge can be answered. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** Live challenges kept per session and purpose: a late proof for the previous one still counts (spec). */
export const MAX_CHALLENGES_PER_SESSION = 3;
/** Bytes of randomness per challenge (256 bits; the spec asks for at least 128). */
const CHALLENGE_BYTES = 32;

/**
 * A new challenge for `sessionId` (or a pending registration's id), valid `CHALLENGE_TTL_MS`.
 * Older live ones of the same session and purpose stay, up to `MAX_CHALLENGES_PER_SESSION`.
 */
export async function issueChallenge(
  sql: SqlStorage,
  sessionId: string,
  purpose: ChallengePurpose,
  random: RandomSource = defaultRandom,
): Promise<{ challenge: string; expiresAt: number }> {
  const now = objectNow();
  const challenge = randomToken(CHALLENGE_BYTES, random);
  const hash = await sha256Hex(challenge);
  const expiresAt = now + CHALLENGE_TTL_MS;
  sql.exec("DELETE FROM binding_challenges WHERE expires_at <= ?", now);
  sql.exec(
    `DELETE FROM binding_challenges WHERE hash IN
       (SELECT hash FROM binding_challenges WHERE session_id = ? AND purpose = ?
          ORDER BY expires_at DESC, rowid DESC LIMIT -1 OFFSET ?)`,
    sessionId,
    purpose,
    MAX_CHALLENGES_PER_SESSION - 1,
  );
  sql.exec(
    "INSERT INTO binding_challenges (hash, session_id, purpose, expires_at) VALUES (?, ?, ?, ?)",
    hash,
    sessionId,
    purpose,
    expiresAt,
  );
  return { challenge, expiresAt };
}

/**
 * True once: when `challenge` was issued for this session and purpose and has not expired. The row
 * is deleted whatever the answer, so a challenge is never accepted twice.
 */
export async function spendChallenge(
  sql: SqlStorage,
  challenge: string,
  sessionId: string,
  purpose: ChallengePurpose,
): Promise<boolean> {
  if (typeof challenge !== "string" || challenge.length === 0 || challenge.length > 256) return false;
  const hash = await sha256Hex(challenge);
  const row = sql
    .exec<{ session_id: string; purpose: string; expires_at: number }>(
      "DELETE FROM binding_challenges WHERE hash = ? RETURNING session_id, purpose, expires_at",
      hash,
    )
    .toArray()[0];
  return !!row && row.session_id === sessionId && row.purpose === purpose && Number(row.expires_at) > objectNow();
}

/** Binds a verified key to `sessionId`; a session keeps its first key (re-registration is refused). */
export function bindKey(
  sql: SqlStorage,
  key: { sessionId: string; jwk: DbscPublicJwk; alg: DbscAlgorithm; thumbprint: string },
): "bound" | "already_bound" {
  const inserted = sql.exec(
    `INSERT INTO bound_keys (session_id, jwk, alg, thumbprint, bound_at, refreshed_at)
       VALUES (?, ?, ?, ?, ?, NULL) ON CONFLICT (session_id) DO NOTHING`,
    key.sessionId,
    JSON.stringify(key.jwk),
    key.alg,
    key.thumbprint,
    objectNow(),
  ).rowsWritten;
  return inserted > 0 ? "bound" : "already_bound";
}

/** The key bound to `sessionId`, or null when it has none. */
export function keyOf(sql: SqlStorage, sessionId: string): BoundKey | null {
  const row = sql
    .exec<{ jwk: string; alg: string; thumbprint: string; bound_at: number; refreshed_at: number | null }>(
      "SELECT jwk, alg, thumbprint, bound_at, refreshed_at FROM bound_keys WHERE session_id = ?",
      sessionId,
    )
    .toArray()[0];
  if (!row) return null;
  return {
    sessionId,
    jwk: JSON.parse(row.jwk) as DbscPublicJwk,
    alg: row.alg as DbscAlgorithm,
    thumbprint: row.thumbprint,
    boundAt: Number(row.bound_at),
    refreshedAt: row.refreshed_at === null ? null : Number(row.refreshed_at),
  };
}

/** Records a successful refresh proof of `sessionId`. */
export function noteRefresh(sql: SqlStorage, sessionId: string): void {
  sql.exec("UPDATE bound_keys SET refreshed_at = ? WHERE session_id = ?", objectNow(), sessionId);
}

/** Drops the keys and challenges of `ids` (revocation: called inside its transaction). */
export function unbindSessions(sql: SqlStorage, ids: readonly string[]): void {
  for (const id of ids) {
    sql.exec("DELETE FROM bound_keys WHERE session_id = ?", id);
    sql.exec("DELETE FROM binding_challenges WHERE session_id = ?", id);
  }
}

/** The alarm's share: expired challenges, and keys of sessions whose row is gone (expired sessions). */
export function purgeDeviceBinding(sql: SqlStorage, now: number): void {
  sql.exec("DELETE FROM binding_challenges WHERE expires_at <= ?", now);
  sql.exec("DELETE FROM bound_keys WHERE session_id NOT IN (SELECT id FROM sessions)");
}

/** What a registration proof's spent challenge led to (`UserSessions.bindDevice`). */
export type BindOutcome = "bound" | "already_bound" | "unknown_challenge" | "inactive";

/**
 * The feature as the object's RPC methods use it: every call names one session, and only an active
 * session (`isActive`: mirrored, unexpired, not revoked) gets a challenge, a key or a refresh.
 */
export class DeviceBinding {
  readonly #sql: SqlStorage;
  readonly #isActive: (sessionId: string, now: number) => boolean;
  readonly #onBound: (sessionId: string, alg: DbscAlgorithm) => void;

  /** `onBound` runs in the same synchronous block as the key's insert (the timeline's `session.device_bound`). */
  constructor(
    sql: SqlStorage,
    isActive: (sessionId: string, now: number) => boolean,
    onBound: (sessionId: string, alg: DbscAlgorithm) => void = () => {},
  ) {
    this.#sql = sql;
    this.#isActive = isActive;
    this.#onBound = onBound;
  }

  /** A challenge for an active session; null otherwise. */
  async challenge(
    sessionId: string,
    purpose: ChallengePurpose,
  ): Promise<{ challenge: string; expiresAt: number } | null> {
    if (!this.#isActive(sessionId, objectNow())) return null;
    return issueChallenge(this.#sql, sessionId, purpose);
  }

  /** Spends a registration challenge and binds the (already verified) key, in that order. */
  async bind(
    sessionId: string,
    challenge: string,
    key: { jwk: DbscPublicJwk; alg: DbscAlgorithm; thumbprint: string },
  ): Promise<BindOutcome> {
    if (!(await spendChallenge(this.#sql, challenge, sessionId, "registration"))) return "unknown_challenge";
    if (!this.#isActive(sessionId, objectNow())) return "inactive";
    const outcome = bindKey(this.#sql, { sessionId, ...key });
    if (outcome === "bound") this.#onBound(sessionId, key.alg);
    return outcome;
  }

  keyOf(sessionId: string): BoundKey | null {
    return keyOf(this.#sql, sessionId);
  }

  /** Spends a refresh challenge of an active session and records the refresh; false when either fails. */
  async refreshed(sessionId: string, challenge: string): Promise<boolean> {
    if (!(await spendChallenge(this.#sql, challenge, sessionId, "refresh"))) return false;
    if (!this.#isActive(sessionId, objectNow())) return false;
    noteRefresh(this.#sql, sessionId);
    return true;
  }

  /** Whether the session is active and whether it has a bound key: what resolve asks in one call. */
  state(sessionId: string, now: number): { active: boolean; bound: boolean } {
    const bound = this.#sql.exec("SELECT 1 FROM bound_keys WHERE session_id = ?", sessionId).toArray().length > 0;
    return { active: this.#isActive(sessionId, now), bound };
  }
}
