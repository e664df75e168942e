/**
 * @module
 * Session lifecycle in the user's object: the mirror of every live session (`register` at sign-in
 * under the policy, `touch` on use, `list`, `isActive`) and revocation, the one way a session ends
 * early: tombstones and queued KV marks in one synchronous commit (strict mode refuses from there),
 * then the tabs told and closed, a receipt, the timeline, and the KV marks written (revocation.ts).
 * A revoked id can never be registered again. Never reachable over RPC (the object delegates).
 */
import type { RegisterResult } from "../../../client-sdk/protocol/lifecycle";
import type { RevocationActor, SessionLocation } from "../../../client-sdk/protocol/security-record";
import { objectNow } from "../../clock";
import type { SessionObject } from "../context";
import { purgeDeviceBinding } from "../device-binding";
import { notifyRevoked, tellSessionsChanged } from "../live";
import { EPOCH_FLOOR } from "../organization-controls/epochs";
import { admit, CAP_ACTOR, type PolicyRow, slide } from "../policy";
import type { RevocationReason, RevocationResult, SessionInfo, SessionMirror } from "../schema";
import { deviceKey, type SecurityRecord } from "../security-record";
import { insertSession, isTombstoned, sessionIds, toInfo, whereabouts } from "./mirror";
import { commitRevocation, drainKvDeletes, pendingKvDeletes } from "./revocation";

export { DEFAULT_REVOCATION_BATCH } from "./revocation";

export interface LifecycleParts {
  record: SecurityRecord;
  /** KV marks written per invocation. */
  batch: number;
  /**
   * A session's KV record was just written from a read that may predate a provider membership
   * change: queue that change again (organization controls); returns how many rewrites it queued.
   */
  catchUp(sessionId: string, now: number): number;
}

export interface RevokeOptions {
  /** Tell every joined socket, not only those of `ids` (the user's every session ends). */
  everyone?: boolean;
  /** Write the KV marks before answering (default), or leave them to the alarm. */
  inlineKv?: boolean;
  /** When the revocation was asked for (its receipt's `refusedAfterMs` counts from here). */
  at?: number;
  /** The organization in whose name the sessions end (a directory deactivation): on the timeline event. */
  organizationId?: string;
}

export class Lifecycle {
  readonly #object: SessionObject;
  readonly #parts: LifecycleParts;
  /** Set when the last KV drain had failures, so the retry alarm backs off. */
  #drainFailed = false;

  constructor(object: SessionObject, parts: LifecycleParts) {
    this.#object = object;
    this.#parts = parts;
  }

  /** KV marks written per invocation. */
  get batch(): number {
    return this.#parts.batch;
  }

  get drainFailed(): boolean {
    return this.#drainFailed;
  }

  /**
   * Mirrors a new session under its policy (policy.ts), records the sign-in and a new device, then
   * ends what the policy evicts. Refuses an id that was revoked. Nothing awaits before the row is
   * in: concurrent sign-ins each see the others.
   */
  register(session: SessionMirror): RegisterResult {
    const { sql } = this.#object;
    const now = objectNow();
    if (isTombstoned(sql, session.id)) return { registered: false, refusedBecause: "revoked" };
    const admission = admit(sql, this.#parts.record, session, now);
    if (!admission.admitted) return { registered: false, refusedBecause: admission.refusedBecause };
    const key = deviceKey(session.deviceClass, session.location);
    insertSession(sql, session, key, admission.row);
    const newDevice = this.#parts.record.noteDevice(key, session, now);
    if (newDevice) sql.exec("UPDATE sessions SET new_device = 1 WHERE id = ?", session.id);
    this.#parts.record.signIn(session, newDevice, now);
    // Its memberships may predate a provider change applied moments ago: re-apply those.
    this.#parts.catchUp(session.id, objectNow());
    const { evict } = admission;
    if (evict.length > 0) {
      // Same synchronous block as the insert: the cap holds before any other request runs here.
      void this.revokeSessions(evict, "revoked", CAP_ACTOR, { inlineKv: false, at: now });
    }
    this.#object.scheduleAlarm();
    this.tellChanged();
    return { registered: true, newDevice, evicted: evict.length };
  }

  /**
   * Records use (the sliding refresh), after the KV record was rewritten; the expiry is the
   * policy's (`slide`). A no-op for unknown sessions; for a revoked one the KV mark is written
   * again, since the slide's write may have landed after the revocation's.
   */
  touch(sessionId: string, lastSeenAt: number, expiresAt: number): void {
    const { sql } = this.#object;
    const row = sql
      .exec<PolicyRow>("SELECT absolute_expires_at, policy FROM sessions WHERE id = ?", sessionId)
      .toArray()[0];
    if (!row) {
      if (isTombstoned(sql, sessionId)) this.rewriteMark(sessionId);
      return;
    }
    sql.exec(
      "UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE id = ?",
      lastSeenAt,
      slide(row, expiresAt),
      sessionId,
    );
    // The slide rewrote the KV record from a read that may predate a recent membership change.
    if (this.#parts.catchUp(sessionId, objectNow()) > 0) this.#object.scheduleAlarm();
  }

  /** Every live (unexpired) session, newest first, each saying whether a device key is bound to it. */
  list(now: number): SessionInfo[] {
    return this.#object.sql
      .exec(
        `SELECT s.*, EXISTS (SELECT 1 FROM bound_keys b WHERE b.session_id = s.id) AS bound
           FROM sessions s WHERE s.expires_at > ? ORDER BY s.created_at DESC`,
        now,
      )
      .toArray()
      .map(toInfo);
  }

  /** The device and place a session signed in from, for the events that name it; undefined when its row is gone. */
  whereabouts(sessionId: string): { device: string | null; location: SessionLocation | null } | undefined {
    return whereabouts(this.#object.sql, sessionId);
  }

  /** Mirrored, unexpired, not revoked, and issued after every kill switch this object was told of. */
  isActive(sessionId: string, now: number): boolean {
    return (
      this.#object.sql
        .exec(`SELECT 1 FROM sessions WHERE id = ? AND expires_at > ? AND created_at >= ${EPOCH_FLOOR}`, sessionId, now)
        .toArray().length > 0
    );
  }

  revoke(sessionId: string, reason: RevocationReason, actor: RevocationActor): Promise<RevocationResult> {
    return this.revokeSessions([sessionId], reason, actor);
  }

  /** Revokes the session only while it is active here; null otherwise (one call: nothing lands in between). */
  async revokeActive(sessionId: string, now: number, actor: RevocationActor): Promise<RevocationResult | null> {
    if (!this.#object.own.isActive(sessionId, now)) return null;
    return this.revokeSessions([sessionId], "revoked", actor);
  }

  revokeAll(reason: RevocationReason, actor: RevocationActor): Promise<RevocationResult> {
    return this.revokeSessions(sessionIds(this.#object.sql, "1 = 1"), reason, actor, { everyone: true });
  }

  revokeOthers(keepSessionId: string, actor: RevocationActor): Promise<RevocationResult> {
    const ids = sessionIds(this.#object.sql, "id != ?", keepSessionId);
    return this.revokeSessions(ids, "signed_out_elsewhere", actor);
  }

  /** The session opened with this provider session id (WorkOS `sid`), as the provider asked. */
  revokeByProviderSession(providerSessionId: string): Promise<RevocationResult> {
    const ids = sessionIds(this.#object.sql, "provider_session_id = ?", providerSessionId);
    return this.revokeSessions(ids, "provider", { kind: "provider", label: "session.revoked" });
  }

  /** Ids of the live rows created before `epoch` (what a kill switch ends). */
  issuedBefore(epoch: number): string[] {
    return sessionIds(this.#object.sql, "created_at < ?", epoch);
  }

  /**
   * Revokes `ids`: commits tombstones and queued KV marks (strict mode refuses them from here), tells
   * and closes their tabs, keeps a receipt, records it on the timeline, then writes the KV marks
   * inline (`inlineKv`, default) or leaves them to the alarm.
   */
  async revokeSessions(
    ids: string[],
    reason: RevocationReason,
    actor: RevocationActor,
    options: RevokeOptions = {},
  ): Promise<RevocationResult> {
    const { storage, sql } = this.#object;
    const started = options.at ?? objectNow();
    const now = objectNow();
    // One session: the timeline names its device and place (read before the commit removes its row).
    const single = ids.length === 1 ? whereabouts(sql, ids[0]!) : undefined;
    // Durable state first, atomically: from here on the sessions are invalid in strict mode.
    const revoked = commitRevocation(storage, ids, reason, now);
    const refusedAfterMs = Math.max(0, objectNow() - started);
    // Same commit as the rows above (no await in between): a crash from here on resumes the KV writes.
    this.#object.scheduleAlarm(options.inlineKv !== false);
    const everyone = options.everyone ?? false;
    const sockets = this.#object.joined(ids.length === 1 && options.everyone !== true ? ids[0] : undefined);
    const socketsClosed = notifyRevoked(sockets, ids, reason, now, everyone);
    let receiptId: string | undefined;
    if (revoked > 0) {
      // The alarm is scheduled below, once the KV marks are written (the continuation alarm covers a crash).
      const facts = {
        at: now,
        actor,
        reason,
        sessionIds: ids,
        revoked,
        socketsClosed,
        refusedAfterMs,
        single,
        ...(options.organizationId ? { organizationId: options.organizationId } : {}),
      };
      receiptId = this.#parts.record.revocation(facts);
      this.tellChanged();
    }
    const pending = options.inlineKv === false ? pendingKvDeletes(sql) : await this.drain();
    this.#object.scheduleAlarm();
    return { ...(receiptId ? { receiptId } : {}), revoked, socketsClosed, pendingKvDeletes: pending, refusedAfterMs };
  }

  /** KV marks still to write. */
  pendingKvDeletes(): number {
    return pendingKvDeletes(this.#object.sql);
  }

  /** Writes up to one batch of pending KV marks; returns how many are still pending. */
  async drain(): Promise<number> {
    const { sql, kv } = this.#object;
    const { pending, failed } = await drainKvDeletes(sql, kv, this.#parts.batch, this.#object.userId(), objectNow());
    this.#drainFailed = failed;
    return pending;
  }

  /** A revoked session's KV record was written again (a late slide or rewrite): queue its mark once more. */
  rewriteMark(sessionId: string): void {
    this.#object.sql.exec("INSERT OR IGNORE INTO kv_deletes (id) VALUES (?)", sessionId);
    this.#object.scheduleAlarm();
  }

  /** Tells every joined tab that the user's session list changed. */
  tellChanged(): void {
    tellSessionsChanged(this.#object.joined());
  }

  /** The alarm's share: expired rows and tombstones go. */
  purge(now: number): void {
    this.#object.sql.exec("DELETE FROM sessions WHERE expires_at <= ?", now);
    this.#object.sql.exec("DELETE FROM tombstones WHERE expires_at <= ?", now);
    purgeDeviceBinding(this.#object.sql, now);
  }
}
