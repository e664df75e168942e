/**
 * @module
 * The security record of a `UserSessions` object: the user's timeline (`timeline.ts`), the devices
 * and places they sign in from (`devices.ts`), a receipt per revocation (`receipts.ts`) and the
 * deliveries of every event to the host's Queue or webhook, and of ended sessions to the named apps
 * (`outbox.ts`). Every event is stored once per cause (its dedupe key), queued for delivery and sent
 * to the user's own record-hearing tabs in the same synchronous block; an app's notice is also tried
 * at once. It records what the other features did; it never decides anything.
 */
import type { DeviceRefreshFailure, SkippedReason } from "../../../client-sdk/protocol/device-binding";
import type {
  KnownDevice,
  RevocationActor,
  RevocationReceipt,
  SecurityEvent,
  SecurityEventDeliveries,
  SessionLocation,
  SignalOutcome,
  TimelinePage,
} from "../../../client-sdk/protocol/security-record";
import { objectNow } from "../../clock";
import { streamsObject } from "../../ssf-streams";
import { type AppConnections, receiverOf } from "../app-connections";
import type { SessionObject } from "../context";
import { stateOf } from "../live";
import { encodeMessage } from "../messages";
import type { RevocationReason, SessionMirror } from "../schema";
import { listDevices, noteDevice, pruneDevices } from "./devices";
import {
  type Destinations,
  deliverAppsOf,
  deliverDue,
  enqueueDeliveries,
  listDeliveries,
  nextDelivery,
} from "./outbox";
import { listReceipts, pruneReceipts, readReceipt, storeReceipt } from "./receipts";
import { appendEvent, type NewEvent, pageTimeline, pruneTimeline } from "./timeline";

export { deviceKey } from "./devices";
export { receiptFields, receiptOwner } from "./receipts";
export { DEFAULT_RETENTION_MS, type NewEvent } from "./timeline";

/**
 * Why a session's use was refused: its revocation, or a bound session's cookie without a fresh
 * device proof — with no word from the browser (`device_proof_missing`, likely a copied cookie), or
 * with its `Secure-Session-Skipped` naming the session (`device_refresh_skipped`).
 */
export type RefusalReason = "revoked" | "device_proof_missing" | "device_refresh_skipped";
export const REFUSAL_REASONS: readonly RefusalReason[] = ["revoked", "device_proof_missing", "device_refresh_skipped"];

/** Why the browser skipped its refresh, as a timeline keeps it: a reason of the spec, or `unknown` (never the raw token). */
export type SkippedDetail = SkippedReason | "unknown";

/** A refused use of a revoked session, a lockout or a refused sign-in: recorded at most once per cause in this window. */
export const ATTEMPT_THROTTLE_MS = 10 * 60 * 1000;

/** Where a sign-in or a session was: what its timeline events name. */
type Whereabouts = Pick<NewEvent, "sessionId" | "device" | "ip" | "location">;

/** What one revocation did, for its receipt and its timeline event. */
export interface RevocationFacts {
  at: number;
  actor: RevocationActor;
  reason: RevocationReason;
  sessionIds: readonly string[];
  revoked: number;
  socketsClosed: number;
  refusedAfterMs: number;
  /** The device and place of a single revoked session (read before its row went). */
  single?: { device: string | null; location: SessionLocation | null };
  /** The organization in whose name they ended (a directory deactivation). */
  organizationId?: string;
}

export class SecurityRecord {
  readonly #object: SessionObject;
  readonly #destinations: Destinations;

  constructor(object: SessionObject, destinations: Destinations) {
    this.#object = object;
    this.#destinations = destinations;
  }

  /**
   * Appends a timeline event, queues its deliveries and tells the user's record-hearing tabs; null
   * for a duplicate. A caller that schedules the alarm itself, in the same synchronous block, passes
   * `schedule = false`.
   */
  record(event: NewEvent, schedule = true): SecurityEvent | null {
    const { sql } = this.#object;
    const stored = appendEvent(sql, this.#object.userId(), event, this.#object.retentionMs);
    if (!stored) return null;
    if (enqueueDeliveries(sql, stored.seq, this.#destinations, event, objectNow())) {
      // Apps hear at once (the output gate holds the call until this commit is durable); the rows
      // are leased meanwhile, and the alarm retries whatever this attempt does not settle.
      this.#object.waitUntil(this.#deliverAppsOf(stored.seq));
    }
    const message = encodeMessage({ type: "timeline.appended", event: stored });
    // Only sockets this object admitted with the record (the user's own cookie, from our pages).
    for (const connection of this.#object.joined()) if (stateOf(connection)?.record === true) connection.send(message);
    if (schedule) this.#object.scheduleAlarm();
    return stored;
  }

  /**
   * Records an attempt that was refused or stopped (a revoked session used again, a lockout, a
   * sign-in past the cap) at most once per `cause` in each `ATTEMPT_THROTTLE_MS` bucket; false
   * when this bucket already has it. The one implementation behind `refused`, `lockout` and the
   * session cap's refusals.
   */
  attempt(cause: string, event: Omit<NewEvent, "at" | "dedupe">, at: number = objectNow()): boolean {
    return this.record({ ...event, at, dedupe: `${cause}:${Math.floor(at / ATTEMPT_THROTTLE_MS)}` }) !== null;
  }

  /**
   * A use of one of the user's revoked sessions (its cookie presented again), or of a bound one
   * without its device's proof; `skipped` (with `device_refresh_skipped`) is why the browser said it
   * had none. Each reason is its own cause, so a browser's skipped refresh never hides a copied cookie.
   */
  refused(
    sessionId: string,
    seen: { ip?: string; device?: string; location?: SessionLocation },
    reason: RefusalReason = "revoked",
    skipped?: SkippedDetail,
  ): boolean {
    const detail: Record<string, string> = { reason };
    if (reason === "device_refresh_skipped") detail.skipped = skipped ?? "unknown";
    return this.attempt(reason === "revoked" ? `refused:${sessionId}` : `refused:${reason}:${sessionId}`, {
      type: "session.refused",
      sessionId,
      sessionIds: [sessionId],
      ip: seen.ip,
      device: seen.device,
      location: seen.location,
      detail,
    });
  }

  /** A refresh proof for a bound session was refused (another key, a spent or unknown challenge, an unreadable proof). */
  deviceRefreshFailed(
    sessionId: string,
    seen: { ip?: string; device?: string; location?: SessionLocation },
    reason: DeviceRefreshFailure,
  ): boolean {
    return this.attempt(`refreshfail:${sessionId}`, {
      type: "session.device_refresh_failed",
      sessionId,
      ip: seen.ip,
      device: seen.device,
      location: seen.location,
      detail: { reason },
    });
  }

  /** A session's browser registered a device key (DBSC): once per session, as a session binds once. */
  deviceBound(
    sessionId: string,
    where: { device: string | null; location: SessionLocation | null } | undefined,
    alg: string,
    at: number = objectNow(),
  ): boolean {
    const event = {
      type: "session.device_bound" as const,
      at,
      dedupe: `bound:${sessionId}`,
      sessionId,
      device: where?.device ?? null,
      location: where?.location ?? null,
      detail: { alg },
    };
    return this.record(event) !== null;
  }

  /** A verified shared signal about this person (issue 32): once per SET, event type and outcome. */
  signal(issuer: string, event: string, outcome: SignalOutcome, setId: string, at: number = objectNow()): boolean {
    const dedupe = `signal:${setId}:${event}:${outcome}`;
    return this.record({ type: "signal.received", at, dedupe, detail: { issuer, event, outcome } }) !== null;
  }

  /** A route limit's lockout of a request that carried this session, per route family. */
  lockout(sessionId: string, family: string, retryAfterSeconds: number, ip?: string): boolean {
    return this.attempt(`lockout:${sessionId}:${family}`, {
      type: "ratelimit.lockout",
      sessionId,
      ip,
      detail: { family, retryAfter: retryAfterSeconds },
    });
  }

  /** Notes the sign-in's device in its place; true when the pair is new within the retention window. */
  noteDevice(key: string, session: SessionMirror, now: number): boolean {
    const device = session.device ?? "Unknown device";
    return noteDevice(this.#object.sql, key, device, session.location ?? null, now, this.#object.retentionMs);
  }

  /**
   * Records a sign-in (unless `session.record` is false), a new device, and who signed in as this
   * person (always, whatever the timeline options say). The caller schedules the alarm.
   */
  signIn(session: SessionMirror, newDevice: boolean, now: number): void {
    const where: Whereabouts = {
      sessionId: session.id,
      device: session.device ?? null,
      ip: session.ip ?? null,
      location: session.location ?? null,
    };
    if (session.record !== false) {
      const detail = { organizationId: session.organizationId ?? null, newDevice };
      this.record({ ...where, type: "session.signed_in", at: now, dedupe: `signin:${session.id}`, detail }, false);
      if (newDevice) {
        this.record(
          { ...where, type: "session.new_device", at: now, dedupe: `newdevice:${session.id}`, detail: {} },
          false,
        );
      }
    }
    const impersonator = session.impersonator;
    if (impersonator) {
      this.record(
        {
          ...where,
          type: "session.impersonated",
          at: now,
          dedupe: `impersonated:${session.id}`,
          actor: { kind: "admin", label: impersonator.email.slice(0, 64) },
          detail: { impersonator: impersonator.email, reason: impersonator.reason },
        },
        false,
      );
    }
  }

  /** Keeps a receipt of a revocation and records it on the timeline; returns the receipt's id (caller schedules the alarm). */
  revocation(facts: RevocationFacts): string {
    const { at, actor, reason, sessionIds, revoked, socketsClosed, refusedAfterMs } = facts;
    const receipt = { at, actor, sessionIds, revoked, socketsClosed, refusedAfterMs };
    const receiptId = storeReceipt(this.#object.sql, this.#object.userId(), receipt, this.#object.retentionMs);
    const signedOut = reason === "logout" || reason === "replaced" || reason === "replaced_by_other_user";
    this.record(
      {
        type: signedOut ? "session.signed_out" : "session.revoked",
        at,
        sessionId: sessionIds.length === 1 ? sessionIds[0]! : null,
        // Every id, however many (the receipt keeps them too): what webhooks, queues and apps get.
        sessionIds: [...sessionIds],
        device: facts.single?.device ?? null,
        location: facts.single?.location ?? null,
        actor,
        detail: {
          receiptId,
          sessions: revoked,
          reason,
          ...(facts.organizationId ? { organizationId: facts.organizationId } : {}),
        },
      },
      false,
    );
    return receiptId;
  }

  /** The user's timeline, newest first, one page at a time. */
  timeline(options: { cursor?: string | null; limit?: number }): TimelinePage {
    return pageTimeline(this.#object.sql, this.#object.userId(), { ...options, now: objectNow() });
  }

  /** The devices and places the user signed in from within the retention window. */
  devices(): KnownDevice[] {
    return listDevices(this.#object.sql, objectNow(), this.#object.retentionMs);
  }

  /** A receipt of this object's revocations, by id; null when unknown or pruned. */
  receipt(id: string): RevocationReceipt | null {
    return readReceipt(this.#object.sql, id, objectNow());
  }

  /** The latest receipts (at most `limit`, 1–100), newest first. */
  receipts(limit: number): RevocationReceipt[] {
    return listReceipts(this.#object.sql, this.#object.userId(), objectNow(), clampLimit(limit));
  }

  /** The deliveries still to make and the latest attempts. */
  deliveries(limit: number): SecurityEventDeliveries {
    return listDeliveries(this.#object.sql, this.#object.userId(), clampLimit(limit));
  }

  /** When the next delivery is due, or null (for the alarm). */
  nextDelivery(): number | null {
    return nextDelivery(this.#object.sql);
  }

  /** The alarm's first share: the apps' notices that are due (before any KV work, which may fail). */
  async deliverApps(now: number): Promise<void> {
    await deliverDue(this.#object.sql, this.#object.userId(), this.#destinations, now, "apps");
  }

  /** The alarm's last share: prune what is past the retention, then send the host's deliveries that are due. */
  async housekeep(now: number): Promise<void> {
    const { sql, retentionMs } = this.#object;
    pruneTimeline(sql, now);
    pruneDevices(sql, now, retentionMs);
    pruneReceipts(sql, now);
    await deliverDue(sql, this.#object.userId(), this.#destinations, now, "host");
  }

  /** The immediate attempt of one event's app rows; the alarm then moves to what is left. */
  async #deliverAppsOf(seq: number): Promise<void> {
    try {
      await deliverAppsOf(this.#object.sql, this.#object.userId(), this.#destinations, seq, objectNow());
    } finally {
      this.#object.scheduleAlarm();
    }
  }
}

/**
 * Where this object's security events go: the Queue if bound, the webhook if its URL and secret are
 * set, every named app (its receiver, or null while its binding is missing: then retried), and the
 * shared-signals streams object when streams are configured.
 */
export function destinationsOf(
  env: Readonly<Record<string, unknown>>,
  queueBinding: string,
  apps: AppConnections = {},
  ssfStreamsBinding: string | null = null,
): Destinations {
  const queue = env[queueBinding];
  const streams = ssfStreamsBinding === null ? undefined : env[ssfStreamsBinding];
  const url = env.SECURITY_EVENTS_WEBHOOK_URL;
  const secret = env.SECURITY_EVENTS_WEBHOOK_SECRET;
  return {
    queue: queue && typeof (queue as Queue).sendBatch === "function" ? (queue as Queue<never>) : null,
    webhook: typeof url === "string" && url && typeof secret === "string" && secret ? { url, secret } : null,
    apps: Object.entries(apps).map(([name, { binding }]) => ({ name, binding, receiver: receiverOf(env, binding) })),
    // Configured but not bound: the hand-off fails and is retried (seen in the log), never skipped.
    ssf:
      ssfStreamsBinding === null
        ? null
        : {
            streams: () => streamsObject(streams),
          },
  };
}

/** A page size an operator may ask for: a whole number from 1 to 100 (anything else: 20). */
function clampLimit(limit: number): number {
  return Number.isInteger(limit) && limit >= 1 && limit <= 100 ? limit : 20;
}
