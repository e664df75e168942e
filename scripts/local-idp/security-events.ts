/**
 * The receiving end of the auth worker's security-event webhook, for the local loop: checks each
 * delivery's `Gatehouse-Signature` against the shared secret (client-sdk/security-events), drops a
 * retried delivery by its `Gatehouse-Event-Id`, and keeps the last deliveries in memory for
 * `/__local/security-events` and the directory page. Never stores, logs or returns the secret.
 */
import type {
  RevocationActor,
  SecurityEvent,
  SecurityEventType,
  SessionLocation,
} from "../../client-sdk/protocol/security-record.ts";
import { verifySecurityEvent } from "../../client-sdk/security-events/index.ts";

export interface SecurityEventsConfig {
  /** The worker's `SECURITY_EVENTS_WEBHOOK_SECRET`: deliveries signed with another are refused. */
  secret: string;
}

/** One delivered event, with when it arrived and how many retried deliveries repeated it. */
export interface ReceivedSecurityEvent {
  event: SecurityEvent;
  receivedAt: number;
  duplicates: number;
}

export type SecurityEventRefusal =
  | "not_configured"
  | "missing_signature"
  | "malformed_signature"
  | "stale_timestamp"
  | "invalid_signature"
  | "missing_event_id"
  | "event_id_mismatch"
  | "invalid_event";

export type ReceiveOutcome = { ok: true; duplicate: boolean } | { ok: false; reason: SecurityEventRefusal };

/** Deliveries kept; older ones are forgotten (and a repeat of one would be kept again). */
export const INBOX_SIZE = 200;

export class SecurityEventInbox {
  readonly #secret: string | null;
  readonly #now: () => number;
  /** Oldest first. */
  #received: ReceivedSecurityEvent[] = [];

  constructor(config: SecurityEventsConfig | null, now: () => number = Date.now) {
    if (config && !config.secret) throw new TypeError("securityEvents: the secret must not be empty");
    this.#secret = config?.secret ?? null;
    this.#now = now;
  }

  /** Whether deliveries are accepted (a secret was given). */
  get enabled(): boolean {
    return this.#secret !== null;
  }

  /** Verifies and keeps one delivery: `body` exactly as received, and its two headers. */
  async receive(body: string, signature: string | null, eventId: string | null): Promise<ReceiveOutcome> {
    if (this.#secret === null) return { ok: false, reason: "not_configured" };
    const now = this.#now();
    // The header is not signed, the body is: the idempotency key must be the signed event's id.
    const verdict = await verifySecurityEvent(body, signature, this.#secret, { now, eventId: eventId ?? undefined });
    if (!verdict.ok) return verdict;
    if (!eventId) return { ok: false, reason: "missing_event_id" };
    const event = parseSecurityEvent(body);
    if (event === null) return { ok: false, reason: "invalid_event" };
    const known = this.#received.find((r) => r.event.id === eventId);
    if (known) {
      known.duplicates++;
      return { ok: true, duplicate: true };
    }
    this.#received.push({ event, receivedAt: now, duplicates: 0 });
    if (this.#received.length > INBOX_SIZE) this.#received.splice(0, this.#received.length - INBOX_SIZE);
    return { ok: true, duplicate: false };
  }

  /** The kept deliveries, newest first. */
  list(): ReceivedSecurityEvent[] {
    return this.#received.map((r) => ({ ...r })).reverse();
  }

  clear(): void {
    this.#received = [];
  }
}

const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/** A `SecurityEvent` from JSON, or null when the body is not one (id, type, userId and at are required). */
export function parseSecurityEvent(body: string): SecurityEvent | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const raw = record(parsed);
  if (!raw) return null;
  const { id, type, userId, at } = raw;
  if (typeof id !== "string" || id === "" || typeof type !== "string" || typeof userId !== "string") return null;
  if (typeof at !== "number" || !Number.isFinite(at)) return null;
  const location = record(raw.location);
  const actor = record(raw.actor);
  const detail: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(record(raw.detail) ?? {})) {
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) {
      detail[key] = value as string | number | boolean | null;
    }
  }
  return {
    id,
    seq: typeof raw.seq === "number" ? raw.seq : 0,
    userId,
    type: type as SecurityEventType,
    at,
    sessionId: text(raw.sessionId),
    device: text(raw.device),
    ip: text(raw.ip),
    location: location
      ? {
          country: text(location.country),
          region: text(location.region),
          city: text(location.city),
          colo: text(location.colo),
        }
      : null,
    actor:
      actor && typeof actor.kind === "string"
        ? {
            kind: actor.kind as RevocationActor["kind"],
            ...(typeof actor.label === "string" ? { label: actor.label } : {}),
          }
        : null,
    detail,
  };
}

/** "Lisbon, Lisbon, PT (LIS)" from whatever parts are known; null when none is. */
export function describePlace(location: SessionLocation | null): string | null {
  if (!location) return null;
  const parts = [location.city, location.region, location.country].filter((p): p is string => !!p);
  const place = parts.join(", ");
  if (location.colo) return place ? `${place} (${location.colo})` : location.colo;
  return place || null;
}
