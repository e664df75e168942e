/**
 * @module
 * `SsfStreams`: the shared-signals streams of this deployment (issue 32), one Durable Object
 * (SQLite) named `streams`. It holds every receiver's streams (SSF 1.0 §8.1: configuration,
 * status, removed subjects), turns each security event the users' objects hand it into signed SETs
 * per stream (`publish`: CAEP/RISC claims from events.ts, ES256 with the current key), and pushes
 * them from its alarm with retries and a delivery log (outbox.ts). The users' objects hand events
 * over at least once through their own outbox; a SET's `jti` is derived from the stream and the
 * event, so a repeated hand-off queues nothing twice. RPC methods only; the worker authenticates
 * receivers and passes their grant.
 */
import { DurableObject } from "cloudflare:workers";
import { randomToken } from "../../client-sdk/core/encoding";
import type { SecurityEvent } from "../../client-sdk/protocol/security-record";
import { SSF_EVENTS, type StreamOverview } from "../../client-sdk/protocol/shared-signals";
import { objectNow } from "../clock";
import { configurationOf, eventsDelivered, type ReceiverGrant, type StreamRow } from "./configuration";
import { eventToSets } from "./events";
import { loadSigningKeys, type SigningKeys, SSF_SIGNING_KEYS } from "./keys";
import {
  changeSubject,
  createStream,
  deleteStream,
  type ManagementAnswer,
  readStatus,
  readStreams,
  statusOf,
  updateStatus,
  updateStream,
  verificationRequest,
} from "./management";
import { enqueueSet, type PushRun, pendingCount, pushDue, recentDeliveries } from "./outbox";
import { SSF_STREAMS_SCHEMA } from "./schema";
import { signSet } from "./sign";
import { isRemoved, type RemovedSubject, removedCount, removedSubjects } from "./subjects";

export { MIN_VERIFICATION_INTERVAL_S, type ReceiverGrant } from "./configuration";
export { SsfTransmitterError, type SsfTransmitterErrorCode } from "./errors";
export {
  concernsStreams,
  eventToSets,
  type InitiatingEntity,
  initiatingEntity,
  type SetContext,
  SUPPORTED_EVENTS,
} from "./events";
export {
  checkSigningKeys,
  loadSigningKeys,
  type PublicSigningJwk,
  type SigningKeys,
  type SigningKeysCheck,
  SSF_SIGNING_KEYS,
} from "./keys";
export type { ManagementAnswer, ManagementErrorCode } from "./management";
export { MAX_HELD, STREAM_RETRY_DELAYS_MS } from "./outbox";
export { signSet } from "./sign";

/** The one object's name in its namespace. */
export const SSF_STREAMS_OBJECT = "streams";

/** The deployment's streams object behind `binding` (an env value), or null when nothing is bound there. */
export function streamsObject(binding: unknown): DurableObjectStub<SsfStreams> | null {
  const namespace = binding as DurableObjectNamespace<SsfStreams> | undefined;
  return typeof namespace?.idFromName === "function" ? namespace.get(namespace.idFromName(SSF_STREAMS_OBJECT)) : null;
}

type StreamsEnv = Record<string, unknown>;

export class SsfStreams extends DurableObject<StreamsEnv> {
  /** The secret env variable holding the signing keys (`createAuthWorker({ ssf: { signingKeys } })` sets it). */
  static signingKeys = SSF_SIGNING_KEYS;
  /**
   * The receivers configured now (`ssf.receivers`, set by `createAuthWorker`), each with the origins
   * its push endpoints may be under (`ssf.receivers.<name>.endpoints`). A stream whose receiver is
   * not here (removed from configuration) or whose `endpoint_url` is no longer under one of its
   * origins (the operator took it away) gets nothing more; its SETs stay held, visible to an
   * operator, until the receiver comes back or points it at an origin still allowed. Empty: none.
   */
  static endpoints: Readonly<Record<string, readonly string[]>> = {};

  constructor(ctx: DurableObjectState, env: StreamsEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(SSF_STREAMS_SCHEMA);
  }

  get #sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  createStream(grant: ReceiverGrant, body: unknown, issuer: string): ManagementAnswer {
    return createStream(this.#sql, grant, body, { issuer, streamId: randomToken(16), now: objectNow() });
  }

  readStreams(grant: ReceiverGrant, streamId: string | null): ManagementAnswer {
    return readStreams(this.#sql, grant, streamId);
  }

  updateStream(grant: ReceiverGrant, body: unknown, replace: boolean): ManagementAnswer {
    return updateStream(this.#sql, grant, body, replace, objectNow());
  }

  deleteStream(grant: ReceiverGrant, streamId: string | null): ManagementAnswer {
    return deleteStream(this.#sql, grant, streamId);
  }

  readStatus(grant: ReceiverGrant, streamId: string | null): ManagementAnswer {
    return readStatus(this.#sql, grant, streamId);
  }

  async updateStatus(grant: ReceiverGrant, body: unknown): Promise<ManagementAnswer> {
    const answer = updateStatus(this.#sql, grant, body, objectNow());
    // A stream enabled again sends what it held.
    if (answer.status === 200) await this.#schedule();
    return answer;
  }

  changeSubject(grant: ReceiverGrant, body: unknown, change: "add" | "remove"): ManagementAnswer {
    return changeSubject(this.#sql, grant, body, change);
  }

  /** §8.1.4: queues a verification SET (not on a disabled stream; held on a paused one). */
  async verify(grant: ReceiverGrant, body: unknown): Promise<ManagementAnswer> {
    const now = objectNow();
    const { answer, row, state } = verificationRequest(this.#sql, grant, body, now);
    if (!row || row.status === "disabled") return answer;
    const keys = await this.#keys();
    const jti = `${row.stream_id}.verification.${randomToken(12)}`;
    const jws = await signSet(
      {
        iss: row.iss,
        aud: row.aud,
        iat: Math.floor(now / 1000),
        jti,
        // §8.1.4.1: the stream itself, as an opaque subject.
        sub_id: { format: "opaque", id: row.stream_id },
        events: { [SSF_EVENTS.verification]: state === undefined ? {} : { state } },
      },
      keys,
    );
    enqueueSet(this.#sql, { streamId: row.stream_id, jti, eventType: SSF_EVENTS.verification, jws }, now);
    await this.#schedule();
    return answer;
  }

  /**
   * Security events from a user's object, as SETs on every stream that is not disabled and wants
   * them (its `events_delivered`, its removed subjects). Returns the SETs queued. Throws when the
   * signing keys cannot be loaded: the user's object keeps the events and tries again later.
   */
  async publish(events: SecurityEvent[]): Promise<number> {
    const streams = this.#live("status != 'disabled'");
    if (streams.length === 0) return 0;
    const now = objectNow();
    let keys: SigningKeys | null = null;
    let queued = 0;
    for (const stream of streams) {
      const delivered = eventsDelivered(JSON.parse(stream.events_requested) as string[]);
      // Read once per stream, not once per SET: a receiver may remove up to MAX_REMOVED_SUBJECTS.
      let removed: RemovedSubject[] | null = null;
      for (const event of events) {
        let n = 0;
        const sets = eventToSets(event, {
          issuer: stream.iss,
          audience: stream.aud,
          now: Math.floor(now / 1000),
          jti: () => `${stream.stream_id}.${event.id}.${n++}`,
        });
        for (const set of sets) {
          const type = Object.keys(set.events)[0]!;
          if (!delivered.includes(type)) continue;
          removed ??= removedSubjects(this.#sql, stream.stream_id);
          if (isRemoved(removed, set.sub_id)) continue;
          keys ??= await this.#keys();
          const jws = await signSet(set, keys);
          enqueueSet(this.#sql, { streamId: stream.stream_id, jti: set.jti, eventType: type, jws }, now);
          queued++;
        }
      }
    }
    if (queued > 0) await this.#schedule();
    return queued;
  }

  /** Every stream with its receiver, status, what it holds and its latest attempts (the operator's view). */
  overview(recent = 20): StreamOverview[] {
    const limit = Number.isInteger(recent) && recent >= 1 && recent <= 100 ? recent : 20;
    return this.#sql
      .exec<StreamRow>("SELECT * FROM streams ORDER BY receiver, created_at, stream_id")
      .toArray()
      .map((row) => ({
        receiver: row.receiver,
        configuration: configurationOf(row),
        status: statusOf(row),
        pending: pendingCount(this.#sql, row.stream_id),
        removedSubjects: removedCount(this.#sql, row.stream_id),
        recent: recentDeliveries(this.#sql, row.stream_id, limit),
      }));
  }

  /** Pushes what is due on every enabled stream, then waits for the next SET due. */
  override async alarm(): Promise<void> {
    const now = objectNow();
    const run: PushRun = { delivered: 0, failed: 0, dropped: 0, refused: 0 };
    for (const stream of this.#live("status = 'enabled'")) {
      await pushDue(
        this.#sql,
        {
          streamId: stream.stream_id,
          endpointUrl: stream.endpoint_url,
          authorizationHeader: stream.authorization_header,
        },
        now,
        run,
      );
    }
    await this.#schedule();
  }

  /** The streams matching `where` whose receiver is still configured, pushing to an origin it still allows. */
  #live(where: string): StreamRow[] {
    const { endpoints } = this.constructor as typeof SsfStreams;
    return this.#sql
      .exec<StreamRow>(`SELECT * FROM streams WHERE ${where}`)
      .toArray()
      .filter(
        (row) =>
          Object.hasOwn(endpoints, row.receiver) && endpoints[row.receiver]!.includes(new URL(row.endpoint_url).origin),
      );
  }

  /** The alarm when the first SET of a live enabled stream is due (a stream's SETs go in order; none: no alarm). */
  async #schedule(): Promise<void> {
    let next: number | null = null;
    for (const stream of this.#live("status = 'enabled'")) {
      const head = this.#sql
        .exec<{ next_at: number }>(
          "SELECT next_at FROM stream_outbox WHERE stream_id = ? ORDER BY id LIMIT 1",
          stream.stream_id,
        )
        .toArray()[0];
      if (head && (next === null || Number(head.next_at) < next)) next = Number(head.next_at);
    }
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next);
  }

  #keys(): Promise<SigningKeys> {
    const variable = (this.constructor as typeof SsfStreams).signingKeys;
    return loadSigningKeys(this.env[variable], variable);
  }
}
