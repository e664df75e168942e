/**
 * @module
 * Delivery of the user's security events: to the host's Queue (`SECURITY_EVENTS`) and/or a signed
 * webhook (`SECURITY_EVENTS_WEBHOOK_URL` + `_SECRET`), and the notices of ended sessions to each
 * named app (`app:<name>`, app-connections/). Every appended event gets one outbox row per
 * configured destination that wants it; the object's alarm sends what is due and retries failures
 * with backoff, then gives up (logged). An app's row is also tried at once, right after the commit,
 * under a lease (`APP_LEASE_MS`) that keeps the alarm off it meanwhile. The webhook's
 * `Gatehouse-Event-Id` is the event's id, so a receiver can drop a retried delivery it already has.
 * It never logs a secret or an event's contents.
 */
import { withAbortDeadline } from "../../../client-sdk/core/deadline";
import type {
  DeliveryOutcome,
  SecurityEvent,
  SecurityEventDeliveries,
  SecurityEventDestination,
} from "../../../client-sdk/protocol/security-record";
import {
  SECURITY_EVENT_ID_HEADER,
  SECURITY_EVENT_SIGNATURE_HEADER,
  signSecurityEvent,
} from "../../../client-sdk/security-events";
import { concernsStreams, type SsfStreams } from "../../ssf-streams";
import {
  APP_LEASE_MS,
  type AppDelivery,
  appDestination,
  concernsApps,
  noticesOf,
  sendNotices,
} from "../app-connections";
import { receiptSessionIds } from "./receipts";
import { eventAt, type NewEvent } from "./timeline";

/** Waits after the 1st, 2nd, … failed attempt; past the last, the delivery is dropped. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000];
/** Deliveries one alarm invocation sends at most (per destination). */
export const DELIVERIES_PER_RUN = 50;
const WEBHOOK_TIMEOUT_MS = 10_000;

export interface Destinations {
  queue: Queue<SecurityEvent> | null;
  webhook: { url: string; secret: string } | null;
  /** The named apps (`apps` option), each hearing only of ended sessions. */
  apps: readonly AppDelivery[];
  /**
   * The shared-signals streams object (null: no streams configured): hears of the events that can
   * become SETs (`concernsStreams`) and turns them into each stream's SETs. `streams()` is null
   * while its binding is missing (then the hand-off fails and is retried).
   */
  ssf: { streams: () => DurableObjectStub<SsfStreams> | null } | null;
}

type Destination = SecurityEventDestination;

/** Which deliveries a run sends: the apps' notices (first in the alarm, before KV work) or the host's. */
export type DeliveryKind = "apps" | "host";

/**
 * Queues deliveries of the event with timeline number `seq` to every configured destination that
 * wants it (apps: only the events of ended sessions). The app rows start leased (`now +
 * APP_LEASE_MS`): the caller tries them at once (`deliverAppsOf`). True when app rows were queued.
 */
export function enqueueDeliveries(
  sql: SqlStorage,
  seq: number,
  destinations: Destinations,
  event: NewEvent,
  now: number,
): boolean {
  for (const destination of configured(destinations, "host")) {
    if (destination === "ssf" && !concernsStreams(event)) continue;
    sql.exec("INSERT OR IGNORE INTO outbox (seq, destination, next_at) VALUES (?, ?, ?)", seq, destination, event.at);
  }
  if (!concernsApps(event)) return false;
  const apps = configured(destinations, "apps");
  for (const destination of apps) {
    sql.exec(
      "INSERT OR IGNORE INTO outbox (seq, destination, next_at) VALUES (?, ?, ?)",
      seq,
      destination,
      now + APP_LEASE_MS,
    );
  }
  return apps.length > 0;
}

/** When the next delivery is due, or null. */
export function nextDelivery(sql: SqlStorage): number | null {
  const t = sql.exec<{ t: number | null }>("SELECT MIN(next_at) AS t FROM outbox").one().t;
  return t === null ? null : Number(t);
}

export interface DeliveryRun {
  delivered: number;
  failed: number;
  dropped: number;
}

/**
 * Sends the deliveries of `kind` due at `now`, at most `DELIVERIES_PER_RUN` per destination. A
 * success removes the row; a failure reschedules it per `RETRY_DELAYS_MS`, and after the last one
 * drops it. Rows of destinations no longer configured go (the host's run clears them all).
 */
export async function deliverDue(
  sql: SqlStorage,
  userId: string,
  destinations: Destinations,
  now: number,
  kind: DeliveryKind = "host",
  fetcher: typeof fetch = fetch,
): Promise<DeliveryRun> {
  const run: DeliveryRun = { delivered: 0, failed: 0, dropped: 0 };
  if (kind === "host") {
    // A destination no longer configured: its rows can never be sent.
    const all = [...configured(destinations, "host"), ...configured(destinations, "apps")];
    sql.exec(`DELETE FROM outbox WHERE destination NOT IN (${all.map(() => "?").join(",") || "''"})`, ...all);
  }
  for (const destination of configured(destinations, kind)) {
    const due = sql
      .exec<{ seq: number; attempts: number }>(
        "SELECT seq, attempts FROM outbox WHERE destination = ? AND next_at <= ? ORDER BY seq LIMIT ?",
        destination,
        now,
        DELIVERIES_PER_RUN,
      )
      .toArray()
      .map((row) => ({ seq: Number(row.seq), attempts: Number(row.attempts) }));
    await deliverRows(sql, userId, destinations, destination, due, now, run, fetcher);
  }
  return run;
}

/**
 * The immediate attempt of event `seq`'s app rows, right after the commit that queued them (the
 * caller runs it under `waitUntil`). Only rows still under their lease are sent: one the alarm or
 * another attempt already settled is left alone.
 */
export async function deliverAppsOf(
  sql: SqlStorage,
  userId: string,
  destinations: Destinations,
  seq: number,
  now: number,
): Promise<DeliveryRun> {
  const run: DeliveryRun = { delivered: 0, failed: 0, dropped: 0 };
  await Promise.all(
    configured(destinations, "apps").map((destination) => {
      const rows = sql
        .exec<{ attempts: number }>(
          "SELECT attempts FROM outbox WHERE seq = ? AND destination = ? AND next_at > ?",
          seq,
          destination,
          now,
        )
        .toArray()
        .map((row) => ({ seq, attempts: Number(row.attempts) }));
      return deliverRows(sql, userId, destinations, destination, rows, now, run, fetch);
    }),
  );
  return run;
}

/** Sends `rows` of one destination and settles each (delivered, retried later, or dropped). */
async function deliverRows(
  sql: SqlStorage,
  userId: string,
  destinations: Destinations,
  destination: Destination,
  rows: readonly { seq: number; attempts: number }[],
  now: number,
  run: DeliveryRun,
  fetcher: typeof fetch,
): Promise<void> {
  const events: { seq: number; attempts: number; event: SecurityEvent }[] = [];
  for (const row of rows) {
    const event = eventAt(sql, userId, row.seq);
    if (event) events.push({ ...row, event });
    else sql.exec("DELETE FROM outbox WHERE seq = ? AND destination = ?", row.seq, destination);
  }
  if (events.length === 0) return;
  const outcomes = await send(
    sql,
    destinations,
    destination,
    events.map((e) => e.event),
    fetcher,
  );
  events.forEach(({ seq, attempts }, i) => {
    settle(sql, { seq, destination, attempts }, outcomes[i] === true, now, run);
  });
}

/** Sends events to one destination; one boolean per event. */
function send(
  sql: SqlStorage,
  destinations: Destinations,
  destination: Destination,
  events: SecurityEvent[],
  fetcher: typeof fetch,
): Promise<boolean[]> {
  if (destination === "queue") return sendToQueue(destinations.queue!, events);
  if (destination === "webhook")
    return Promise.all(events.map((e) => sendToWebhook(destinations.webhook!, e, fetcher)));
  if (destination === "ssf") return sendToStreams(destinations.ssf!, events);
  const app = destinations.apps.find((a) => appDestination(a.name) === destination)!;
  return Promise.all(
    events.map((event) =>
      sendNotices(
        app,
        noticesOf(event, () => receiptSessionIds(sql, event.detail.receiptId)),
      ),
    ),
  );
}

/** A success removes the row; a failure reschedules it per `RETRY_DELAYS_MS`, and after the last one drops it. */
function settle(
  sql: SqlStorage,
  row: { seq: number; destination: Destination; attempts: number },
  delivered: boolean,
  now: number,
  run: DeliveryRun,
): void {
  const { seq, destination, attempts } = row;
  const outcome = delivered ? "delivered" : attempts >= RETRY_DELAYS_MS.length ? "dropped" : "failed";
  logDelivery(sql, { seq, destination, at: now, outcome, attempt: attempts + 1 });
  if (delivered) {
    sql.exec("DELETE FROM outbox WHERE seq = ? AND destination = ?", seq, destination);
    run.delivered++;
  } else if (attempts >= RETRY_DELAYS_MS.length) {
    sql.exec("DELETE FROM outbox WHERE seq = ? AND destination = ?", seq, destination);
    run.dropped++;
    console.error(
      `gatehouse: gave up delivering a security event to the ${destination} after ${attempts + 1} attempts`,
    );
  } else {
    sql.exec(
      "UPDATE outbox SET attempts = attempts + 1, next_at = ? WHERE seq = ? AND destination = ?",
      now + RETRY_DELAYS_MS[attempts]!,
      seq,
      destination,
    );
    run.failed++;
  }
}

/** Attempts the delivery log keeps (per user, newest kept): enough for an operator's page. */
export const DELIVERY_LOG_SIZE = 100;

/** One attempt to deliver event `seq` to a destination, and how it went. */
interface DeliveryAttempt {
  seq: number;
  destination: Destination;
  at: number;
  outcome: DeliveryOutcome;
  attempt: number;
}

function logDelivery(sql: SqlStorage, attempt: DeliveryAttempt): void {
  sql.exec(
    "INSERT INTO deliveries (seq, destination, at, outcome, attempt) VALUES (?, ?, ?, ?, ?)",
    attempt.seq,
    attempt.destination,
    attempt.at,
    attempt.outcome,
    attempt.attempt,
  );
  sql.exec(
    "DELETE FROM deliveries WHERE id <= (SELECT id FROM deliveries ORDER BY id DESC LIMIT 1 OFFSET ?)",
    DELIVERY_LOG_SIZE,
  );
}

/**
 * The deliveries of this user's security events an operator can see: those still to make (with
 * their attempts and next try) and the latest attempts (newest first), each naming its event.
 */
export function listDeliveries(sql: SqlStorage, userId: string, limit: number): SecurityEventDeliveries {
  const named = (seq: number) => {
    const event = eventAt(sql, userId, seq);
    return { eventId: event?.id ?? null, type: event?.type ?? null };
  };
  const pending = sql
    .exec<{ seq: number; destination: string; attempts: number; next_at: number }>(
      "SELECT seq, destination, attempts, next_at FROM outbox ORDER BY next_at, seq LIMIT ?",
      limit,
    )
    .toArray()
    .map((r) => ({
      ...named(Number(r.seq)),
      destination: r.destination as Destination,
      attempts: Number(r.attempts),
      nextAt: Number(r.next_at),
    }));
  const recent = sql
    .exec<{ seq: number; destination: string; at: number; outcome: string; attempt: number }>(
      "SELECT seq, destination, at, outcome, attempt FROM deliveries ORDER BY id DESC LIMIT ?",
      limit,
    )
    .toArray()
    .map((r) => ({
      ...named(Number(r.seq)),
      destination: r.destination as Destination,
      at: Number(r.at),
      outcome: r.outcome as DeliveryOutcome,
      attempt: Number(r.attempt),
    }));
  return { pending, recent };
}

/** The configured destinations of `kind`: the host's Queue and webhook, or one `app:<name>` per app. */
function configured(destinations: Destinations, kind: DeliveryKind): Destination[] {
  if (kind === "apps") return destinations.apps.map((app) => appDestination(app.name));
  return [
    ...(destinations.queue ? (["queue"] as const) : []),
    ...(destinations.webhook ? (["webhook"] as const) : []),
    ...(destinations.ssf ? (["ssf"] as const) : []),
  ];
}

/** One hand-off of a batch to the streams object: all taken or none (it queues each SET once by `jti`). */
async function sendToStreams(ssf: NonNullable<Destinations["ssf"]>, events: SecurityEvent[]): Promise<boolean[]> {
  try {
    const streams = ssf.streams();
    if (!streams) throw new Error("the SsfStreams binding is missing");
    await streams.publish(events);
    return events.map(() => true);
  } catch (err) {
    console.error(
      `gatehouse: ssf: the streams object did not take security events: ${err instanceof Error ? err.message : "error"}`,
    );
    return events.map(() => false);
  }
}

/** One batch to the queue: all delivered or none (a Queue batch is accepted whole). */
async function sendToQueue(queue: Queue<SecurityEvent>, events: SecurityEvent[]): Promise<boolean[]> {
  try {
    await queue.sendBatch(events.map((body) => ({ body, contentType: "json" })));
    return events.map(() => true);
  } catch (err) {
    console.error("gatehouse: security events queue refused a batch", err instanceof Error ? err.message : err);
    return events.map(() => false);
  }
}

/**
 * One signed POST. Signed with the wall clock: the receiver checks the timestamp against its own.
 * A redirect is a failure (never followed: the signed event goes to the configured URL only), and a
 * slow receiver is aborted at the deadline, so a late success cannot follow a retry.
 */
async function sendToWebhook(
  webhook: { url: string; secret: string },
  event: SecurityEvent,
  fetcher: typeof fetch,
): Promise<boolean> {
  const body = JSON.stringify(event);
  try {
    const signature = await signSecurityEvent(body, webhook.secret, Date.now());
    const response = await withAbortDeadline(
      (signal) =>
        fetcher(webhook.url, {
          method: "POST",
          redirect: "manual",
          signal,
          headers: {
            "Content-Type": "application/json",
            "User-Agent": "gatehouse-workers security events",
            [SECURITY_EVENT_SIGNATURE_HEADER]: signature,
            [SECURITY_EVENT_ID_HEADER]: event.id,
          },
          body,
        }),
      WEBHOOK_TIMEOUT_MS,
      () => new Error("timed out"),
    );
    await response.body?.cancel();
    if (!response.ok) console.error(`gatehouse: security event webhook answered ${response.status}`);
    return response.ok;
  } catch (err) {
    // The error's name only: a message may carry the receiver's URL, and with it a token.
    console.error("gatehouse: security event webhook failed", err instanceof Error ? err.name : "unknown error");
    return false;
  }
}
