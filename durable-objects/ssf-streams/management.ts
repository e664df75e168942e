/**
 * @module
 * The stream management API's operations (SSF 1.0 §8.1) over the object's rows, for one receiver
 * at a time: create, read, update (PATCH), replace (PUT), delete; status read and update; subjects
 * add and remove; verification. The worker authenticated the receiver and hands its grant; a
 * stream of another receiver is answered exactly like no stream (404), so a receiver cannot probe
 * another's ids. Answers are plain data (`ManagementAnswer`): the worker's route makes the HTTP
 * response. Nothing here signs or sends: index.ts queues what must go out (verification).
 */
import type { StreamConfiguration, StreamStatus, StreamStatusValue } from "../../client-sdk/protocol/shared-signals";
import {
  configurationOf,
  isObject,
  MIN_VERIFICATION_INTERVAL_S,
  propertiesOf,
  type ReceiverGrant,
  type ReceiverProperties,
  receiverProperties,
  type StreamRow,
  transmitterMismatch,
  truncate,
} from "./configuration";
import { addSubject, canonicalSubject, removeSubject } from "./subjects";

/** The management API's error codes (the JSON `error` of a 4xx). */
export type ManagementErrorCode = "invalid_request" | "forbidden" | "not_found" | "conflict" | "too_many_requests";

export type ManagementAnswer =
  | { status: 200 | 201; body: StreamConfiguration | StreamConfiguration[] | StreamStatus | null }
  | { status: 204 }
  | { status: 400 | 403 | 404 | 409 | 429; error: ManagementErrorCode; description: string; retryAfter?: number };

const STATUSES: readonly StreamStatusValue[] = ["enabled", "paused", "disabled"];
const MAX_REASON = 256;
const MAX_STATE = 1_024;
const STREAM_ID = /^[A-Za-z0-9_-]{1,64}$/;

const invalid = (description: string): ManagementAnswer => ({ status: 400, error: "invalid_request", description });
const NOT_FOUND: ManagementAnswer = {
  status: 404,
  error: "not_found",
  description: "There is no stream with this stream_id for this receiver.",
};

/** The receiver's stream `id`, or null (another receiver's stream is none of this one's). */
export function ownStream(sql: SqlStorage, grant: ReceiverGrant, id: unknown): StreamRow | null {
  if (typeof id !== "string" || !STREAM_ID.test(id)) return null;
  return (
    sql.exec<StreamRow>("SELECT * FROM streams WHERE stream_id = ? AND receiver = ?", id, grant.name).toArray()[0] ??
    null
  );
}

/** A body naming one of the receiver's streams: the body and the stream, or the answer that refuses it (400, 404). */
function streamOfBody(
  sql: SqlStorage,
  grant: ReceiverGrant,
  body: unknown,
): { body: Record<string, unknown>; row: StreamRow } | { refused: ManagementAnswer } {
  if (!isObject(body)) return { refused: invalid("The body must be a JSON object.") };
  if (typeof body.stream_id !== "string") return { refused: invalid("stream_id is required.") };
  const row = ownStream(sql, grant, body.stream_id);
  return row ? { body, row } : { refused: NOT_FOUND };
}

function write(sql: SqlStorage, row: StreamRow, props: ReceiverProperties, now: number): void {
  sql.exec(
    `INSERT INTO streams (stream_id, receiver, iss, aud, endpoint_url, authorization_header, events_requested, description, status, reason, created_at, updated_at, verification_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (stream_id) DO UPDATE SET endpoint_url = excluded.endpoint_url,
       authorization_header = excluded.authorization_header, events_requested = excluded.events_requested,
       description = excluded.description, updated_at = excluded.updated_at`,
    row.stream_id,
    row.receiver,
    row.iss,
    row.aud,
    props.endpointUrl,
    props.authorizationHeader,
    JSON.stringify(props.eventsRequested),
    props.description,
    row.status,
    row.reason,
    row.created_at,
    now,
    row.verification_at,
  );
}

/** §8.1.1.1: a new stream (201), or 409 past the receiver's number of streams. */
export function createStream(
  sql: SqlStorage,
  grant: ReceiverGrant,
  body: unknown,
  context: { issuer: string; streamId: string; now: number },
): ManagementAnswer {
  if (!isObject(body)) return invalid("The body must be a JSON object.");
  if (body.stream_id !== undefined) return invalid("stream_id is chosen by the transmitter.");
  const count = Number(
    sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM streams WHERE receiver = ?", grant.name).one().n,
  );
  if (count >= grant.maxStreams) {
    return {
      status: 409,
      error: "conflict",
      description: `This receiver has ${count} streams, the most it may have; update or delete one.`,
    };
  }
  const props = receiverProperties(body, grant, null, false);
  if (!props.ok) return refusal(props.refusal);
  const row: StreamRow = {
    stream_id: context.streamId,
    receiver: grant.name,
    iss: context.issuer,
    aud: grant.audience,
    endpoint_url: props.value.endpointUrl,
    authorization_header: props.value.authorizationHeader,
    events_requested: "[]",
    description: null,
    status: "enabled",
    reason: null,
    created_at: context.now,
    updated_at: context.now,
    verification_at: null,
  };
  write(sql, row, props.value, context.now);
  return { status: 201, body: configurationOf(ownStream(sql, grant, row.stream_id)!) };
}

/** §8.1.1.2: one stream, or every stream of the receiver (a list, maybe empty) without `stream_id`. */
export function readStreams(sql: SqlStorage, grant: ReceiverGrant, streamId: string | null): ManagementAnswer {
  if (streamId === null) {
    const rows = sql
      .exec<StreamRow>("SELECT * FROM streams WHERE receiver = ? ORDER BY created_at, stream_id", grant.name)
      .toArray();
    return { status: 200, body: rows.map(configurationOf) };
  }
  const row = ownStream(sql, grant, streamId);
  return row ? { status: 200, body: configurationOf(row) } : NOT_FOUND;
}

/** §8.1.1.3 (PATCH) and §8.1.1.4 (PUT, `replace`): the whole configuration after the change. */
export function updateStream(
  sql: SqlStorage,
  grant: ReceiverGrant,
  given: unknown,
  replace: boolean,
  now: number,
): ManagementAnswer {
  const named = streamOfBody(sql, grant, given);
  if ("refused" in named) return named.refused;
  const { body, row } = named;
  const mismatch = transmitterMismatch(body, configurationOf(row));
  if (mismatch) return invalid(`${mismatch}.`);
  const props = receiverProperties(body, grant, propertiesOf(row), replace);
  if (!props.ok) return refusal(props.refusal);
  write(sql, row, props.value, now);
  return { status: 200, body: configurationOf(ownStream(sql, grant, row.stream_id)!) };
}

/** §8.1.1.5: the stream, its held SETs and its removed subjects go (204). */
export function deleteStream(sql: SqlStorage, grant: ReceiverGrant, streamId: string | null): ManagementAnswer {
  const row = ownStream(sql, grant, streamId);
  if (!row) return NOT_FOUND;
  sql.exec("DELETE FROM streams WHERE stream_id = ?", row.stream_id);
  sql.exec("DELETE FROM stream_outbox WHERE stream_id = ?", row.stream_id);
  sql.exec("DELETE FROM stream_subjects WHERE stream_id = ?", row.stream_id);
  return { status: 204 };
}

export function statusOf(row: StreamRow): StreamStatus {
  return {
    stream_id: row.stream_id,
    status: row.status as StreamStatusValue,
    ...(row.reason !== null ? { reason: row.reason } : {}),
  };
}

/** §8.1.2.1. */
export function readStatus(sql: SqlStorage, grant: ReceiverGrant, streamId: string | null): ManagementAnswer {
  if (streamId === null) return invalid("stream_id is required.");
  const row = ownStream(sql, grant, streamId);
  return row ? { status: 200, body: statusOf(row) } : NOT_FOUND;
}

/**
 * §8.1.2.2: `paused` holds new SETs, `disabled` drops what is held and queues nothing more,
 * `enabled` sends what was held. The caller schedules delivery when a stream comes back.
 */
export function updateStatus(sql: SqlStorage, grant: ReceiverGrant, given: unknown, now: number): ManagementAnswer {
  const named = streamOfBody(sql, grant, given);
  if ("refused" in named) return named.refused;
  const { body, row } = named;
  if (typeof body.status !== "string" || !STATUSES.includes(body.status as StreamStatusValue)) {
    return invalid("status must be enabled, paused or disabled.");
  }
  if (body.reason !== undefined && typeof body.reason !== "string") return invalid("reason must be a string.");
  const reason = typeof body.reason === "string" ? truncate(body.reason, MAX_REASON) : null;
  sql.exec(
    "UPDATE streams SET status = ?, reason = ?, updated_at = ? WHERE stream_id = ?",
    body.status,
    reason,
    now,
    row.stream_id,
  );
  if (body.status === "disabled") sql.exec("DELETE FROM stream_outbox WHERE stream_id = ?", row.stream_id);
  return { status: 200, body: statusOf(ownStream(sql, grant, row.stream_id)!) };
}

/**
 * §8.1.3.2 (add, 200) and §8.1.3.3 (remove, 204). Every subject starts in the stream; a subject
 * we never heard of is answered like any other (SSF 1.0 §9.1: no probing who is a user here).
 */
export function changeSubject(
  sql: SqlStorage,
  grant: ReceiverGrant,
  given: unknown,
  change: "add" | "remove",
): ManagementAnswer {
  const named = streamOfBody(sql, grant, given);
  if ("refused" in named) return named.refused;
  const { body, row } = named;
  const subject = canonicalSubject(body.subject);
  if (subject === null) return invalid("subject must be a subject identifier (an object with a format).");
  if (body.verified !== undefined && typeof body.verified !== "boolean") return invalid("verified must be a boolean.");
  if (change === "add") {
    addSubject(sql, row.stream_id, subject);
    return { status: 200, body: null };
  }
  if (!removeSubject(sql, row.stream_id, subject))
    return invalid("This stream has removed as many subjects as it may.");
  return { status: 204 };
}

/**
 * §8.1.4.2: checks a verification request and records its time; the caller queues the SET. More
 * often than `min_verification_interval`: 429 with the seconds to wait.
 */
export function verificationRequest(
  sql: SqlStorage,
  grant: ReceiverGrant,
  given: unknown,
  now: number,
): { answer: ManagementAnswer; row?: StreamRow; state?: string } {
  const named = streamOfBody(sql, grant, given);
  if ("refused" in named) return { answer: named.refused };
  const { body, row } = named;
  if (body.state !== undefined && (typeof body.state !== "string" || body.state.length > MAX_STATE)) {
    return { answer: invalid(`state must be a string of at most ${MAX_STATE} characters.`) };
  }
  const last = row.verification_at === null ? null : Number(row.verification_at);
  const wait = last === null ? 0 : Math.ceil((last + MIN_VERIFICATION_INTERVAL_S * 1000 - now) / 1000);
  if (wait > 0) {
    return {
      answer: {
        status: 429,
        error: "too_many_requests",
        description: `At most one verification every ${MIN_VERIFICATION_INTERVAL_S} seconds.`,
        retryAfter: wait,
      },
    };
  }
  sql.exec("UPDATE streams SET verification_at = ? WHERE stream_id = ?", now, row.stream_id);
  return { answer: { status: 204 }, row, ...(typeof body.state === "string" ? { state: body.state } : {}) };
}

function refusal(r: { status: 400 | 403; description: string }): ManagementAnswer {
  return r.status === 403 ? { status: 403, error: "forbidden", description: r.description } : invalid(r.description);
}
