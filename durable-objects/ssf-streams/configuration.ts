/**
 * @module
 * A stream's configuration (SSF 1.0 §8.1.1): the receiver-supplied properties checked
 * (`events_requested`, `delivery`, `description`), the transmitter-supplied ones a request may
 * repeat but not change, and the configuration as the management API shows it. Pure functions
 * over plain objects; `streams` rows are read and written in management.ts.
 *
 * A push endpoint is the one URL a receiver chooses: it must be under an origin the operator
 * listed for that receiver (`endpoints`), with no credentials or fragment, so a receiver's token
 * cannot turn the auth worker into a request forwarder to anywhere else.
 */
import { POLL_DELIVERY, PUSH_DELIVERY, type StreamConfiguration } from "../../client-sdk/protocol/shared-signals";
import { SUPPORTED_EVENTS } from "./events";

/** Seconds between two verification requests of a stream (SSF 1.0 §8.1.1 `min_verification_interval`). */
export const MIN_VERIFICATION_INTERVAL_S = 30;
/** A description longer than this is cut (§8.1.1: the transmitter MAY truncate it). */
export const MAX_DESCRIPTION = 256;
const MAX_URL = 2_048;
const MAX_AUTHORIZATION = 4_096;
const MAX_REQUESTED = 64;
const MAX_EVENT_URI = 512;

/** What the operator allowed one receiver (`ssf.receivers.<name>`), handed to the object with each call. */
export interface ReceiverGrant {
  /** The receiver's name in configuration: the owner of its streams. */
  name: string;
  /** The `aud` of its streams and of every SET they carry. */
  audience: string;
  /** Origins its push endpoints may be under (`https://receiver.example.com`). */
  endpoints: readonly string[];
  /** Streams it may have at once. */
  maxStreams: number;
}

/** The receiver-supplied properties, checked. */
export interface ReceiverProperties {
  eventsRequested: string[];
  endpointUrl: string;
  authorizationHeader: string | null;
  description: string | null;
}

/** A stream row's view (what management.ts reads). */
export type StreamRow = {
  stream_id: string;
  receiver: string;
  iss: string;
  aud: string;
  endpoint_url: string;
  authorization_header: string | null;
  events_requested: string;
  description: string | null;
  status: string;
  reason: string | null;
  created_at: number;
  updated_at: number;
  verification_at: number | null;
};

/** A refusal: the HTTP status and a fixed description (never an echo of the request). */
export interface Refusal {
  status: 400 | 403;
  description: string;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };
const refuse = (description: string, status: 400 | 403 = 400): { ok: false; refusal: Refusal } => ({
  ok: false,
  refusal: { status, description },
});

/** `text` cut to at most `max` UTF-16 units, never between the two halves of a surrogate pair (one would be stored as U+FFFD). */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The events a stream delivers: those we send, among those it asked for (§8.1.1 `events_delivered`). */
export function eventsDelivered(requested: readonly string[]): string[] {
  return SUPPORTED_EVENTS.filter((event) => requested.includes(event));
}

/** The configuration as the management API shows it (no `authorization_header`: the receiver's own secret). */
export function configurationOf(row: StreamRow): StreamConfiguration {
  const requested = JSON.parse(row.events_requested) as string[];
  return {
    stream_id: row.stream_id,
    iss: row.iss,
    aud: row.aud,
    events_supported: [...SUPPORTED_EVENTS],
    events_requested: requested,
    events_delivered: eventsDelivered(requested),
    delivery: { method: PUSH_DELIVERY, endpoint_url: row.endpoint_url },
    min_verification_interval: MIN_VERIFICATION_INTERVAL_S,
    ...(row.description !== null ? { description: row.description } : {}),
  };
}

/**
 * The receiver-supplied properties of a create (`base` null) or of a PATCH/PUT over `base`: a
 * PATCH keeps what it does not name, a PUT (`replace`) deletes it (§8.1.1.3-4). Without `delivery`
 * a create or replace would mean poll delivery, which is not offered (§8.1.1.1: 400).
 */
export function receiverProperties(
  body: Record<string, unknown>,
  grant: ReceiverGrant,
  base: ReceiverProperties | null,
  replace: boolean,
): Parsed<ReceiverProperties> {
  const keep = base !== null && !replace;
  let eventsRequested: string[];
  if (body.events_requested === undefined) {
    // A new stream that names no events gets every event we send (listed back as requested).
    eventsRequested = keep ? base.eventsRequested : base === null ? [...SUPPORTED_EVENTS] : [];
  } else {
    const list = body.events_requested;
    if (!Array.isArray(list) || list.length > MAX_REQUESTED) {
      return refuse(`events_requested must be an array of at most ${MAX_REQUESTED} event type URIs`);
    }
    if (list.some((uri) => typeof uri !== "string" || uri === "" || uri.length > MAX_EVENT_URI)) {
      return refuse("events_requested must hold event type URIs (strings)");
    }
    eventsRequested = [...new Set(list as string[])];
  }
  let description: string | null;
  if (body.description === undefined) description = keep ? base.description : null;
  else if (typeof body.description !== "string") return refuse("description must be a string");
  else description = truncate(body.description, MAX_DESCRIPTION);
  if (body.delivery === undefined) {
    if (keep) return { ok: true, value: { ...base, eventsRequested, description } };
    return refuse(
      `delivery is required: only push delivery (${PUSH_DELIVERY}) is offered, not poll (${POLL_DELIVERY})`,
    );
  }
  const delivery = parseDelivery(body.delivery, grant);
  if (!delivery.ok) return delivery;
  return { ok: true, value: { eventsRequested, description, ...delivery.value } };
}

function parseDelivery(
  value: unknown,
  grant: ReceiverGrant,
): Parsed<{ endpointUrl: string; authorizationHeader: string | null }> {
  if (!isObject(value)) return refuse("delivery must be an object with method and endpoint_url");
  if (value.method === POLL_DELIVERY) return refuse(`poll delivery (${POLL_DELIVERY}) is not offered; use push`);
  if (value.method !== PUSH_DELIVERY) return refuse(`delivery.method must be ${PUSH_DELIVERY}`);
  const endpoint = value.endpoint_url;
  if (typeof endpoint !== "string" || endpoint.length > MAX_URL) return refuse("delivery.endpoint_url must be a URL");
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return refuse("delivery.endpoint_url must be a URL");
  }
  if (url.username || url.password || url.hash || !grant.endpoints.includes(url.origin)) {
    return refuse("delivery.endpoint_url is not under an origin allowed for this receiver", 403);
  }
  const header = value.authorization_header;
  if (header !== undefined && (typeof header !== "string" || !/^[\x20-\x7e]{1,4096}$/.test(header))) {
    return refuse(`delivery.authorization_header must be printable ASCII, at most ${MAX_AUTHORIZATION} characters`);
  }
  return { ok: true, value: { endpointUrl: url.href, authorizationHeader: (header as string | undefined) ?? null } };
}

/**
 * §8.1.1.3-4: transmitter-supplied properties may be present but must equal ours (`events_delivered`
 * as it was before the update). Returns the description of the first that differs, or null.
 */
export function transmitterMismatch(body: Record<string, unknown>, current: StreamConfiguration): string | null {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const sameSet = (a: unknown, b: readonly string[]) =>
    Array.isArray(a) && a.length === b.length && b.every((x) => a.includes(x));
  if (body.iss !== undefined && body.iss !== current.iss) return "iss does not match the stream's";
  if (body.aud !== undefined && !same(body.aud, current.aud) && !same(body.aud, [current.aud])) {
    return "aud cannot be changed";
  }
  if (body.events_supported !== undefined && !sameSet(body.events_supported, current.events_supported)) {
    return "events_supported does not match the stream's";
  }
  if (body.events_delivered !== undefined && !sameSet(body.events_delivered, current.events_delivered)) {
    return "events_delivered does not match the stream's";
  }
  if (
    body.min_verification_interval !== undefined &&
    body.min_verification_interval !== current.min_verification_interval
  ) {
    return "min_verification_interval does not match the stream's";
  }
  return null;
}

/** The row's receiver-supplied properties (the base of a PATCH or PUT). */
export function propertiesOf(row: StreamRow): ReceiverProperties {
  return {
    eventsRequested: JSON.parse(row.events_requested) as string[],
    endpointUrl: row.endpoint_url,
    authorizationHeader: row.authorization_header,
    description: row.description,
  };
}
