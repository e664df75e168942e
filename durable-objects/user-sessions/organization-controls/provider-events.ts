/**
 * @module
 * How a `UserSessions` object applies one verified identity-provider event:
 * at most once per event id (`processed_events`, kept for the provider's retry
 * window), revocations through lifecycle (its own fan-out to the tabs): one provider session, or
 * every session of a deleted or deactivated person; membership changes
 * recorded per organization (`provider_memberships`, newest event wins) and
 * queued for every live session. Module functions, never reachable over RPC.
 */

import type { RevocationActor } from "../../../client-sdk/protocol/security-record";
import { objectNow } from "../../clock";
import type { ProviderEvent, ProviderEventResult, RevocationReason, RevocationResult } from "../schema";
import type { NewEvent } from "../security-record/timeline";
import type { RewriteQueue } from "./rewrites";

/** Processed event ids (and membership ordering state) are kept this long: WorkOS retries for up to 3 days. */
export const PROCESSED_EVENT_TTL_MS = 4 * 24 * 3600 * 1000;

/** The events that end every session of the person, and the reason each revocation carries. */
const ENDS_EVERY_SESSION = {
  "user.deleted": "user_deleted",
  "dsync.user.updated": "user_deactivated",
  "dsync.user.deleted": "user_deactivated",
} as const satisfies Record<string, RevocationReason>;

type EndingEverySession = Extract<ProviderEvent, { type: keyof typeof ENDS_EVERY_SESSION }>;

const endsEverySession = (event: ProviderEvent): event is EndingEverySession =>
  Object.hasOwn(ENDS_EVERY_SESSION, event.type);

export interface ProviderEventHost {
  sql: SqlStorage;
  rewrites: RewriteQueue;
  /** Sessions this invocation may rewrite before the alarm takes over. */
  rewriteLimit: number;
  revokeByProviderSession(providerSessionId: string): Promise<RevocationResult>;
  revokeAll(reason: RevocationReason, actor: RevocationActor): Promise<RevocationResult>;
  /** Appends an event to the user's timeline. */
  record(event: NewEvent): void;
  /** `continuation`: before an inline run of queued work, so a crash mid-run resumes it (see context.ts). */
  scheduleAlarm(continuation?: boolean): void;
}

export async function applyProviderEvent(host: ProviderEventHost, event: ProviderEvent): Promise<ProviderEventResult> {
  const { sql, rewrites } = host;
  const now = objectNow();
  const result: ProviderEventResult = {
    outcome: "applied",
    revoked: 0,
    socketsClosed: 0,
    sessionsQueued: 0,
    sessionsRewritten: 0,
    pendingRewrites: 0,
  };
  if (sql.exec("SELECT 1 FROM processed_events WHERE id = ?", event.id).toArray().length > 0) {
    return { ...result, outcome: "duplicate", pendingRewrites: rewrites.pending() };
  }
  // Recorded before the first await, so a concurrent redelivery of the same id sees it. The
  // durable part of the work below is synchronous too; what needs KV continues by alarm.
  sql.exec(
    "INSERT INTO processed_events (id, type, processed_at, expires_at) VALUES (?, ?, ?, ?)",
    event.id,
    event.type,
    now,
    now + PROCESSED_EVENT_TTL_MS,
  );
  if (event.type === "session.revoked" || endsEverySession(event)) {
    // The actor's label is the provider's event type: the timeline says which event ended them.
    const revocation =
      event.type === "session.revoked"
        ? await host.revokeByProviderSession(event.providerSessionId)
        : await host.revokeAll(ENDS_EVERY_SESSION[event.type], { kind: "provider", label: event.type });
    host.scheduleAlarm();
    return {
      ...result,
      revoked: revocation.revoked,
      socketsClosed: revocation.socketsClosed,
      pendingRewrites: rewrites.pending(),
    };
  }
  const last = sql
    .exec<{ event_at: number }>(
      "SELECT event_at FROM provider_memberships WHERE organization_id = ?",
      event.organizationId,
    )
    .toArray()[0];
  if (last && Number(last.event_at) > event.occurredAt) {
    // Webhooks can arrive out of order: a later change of this membership was already applied.
    host.scheduleAlarm();
    return { ...result, outcome: "stale", pendingRewrites: rewrites.pending() };
  }
  sql.exec(
    `INSERT INTO provider_memberships (organization_id, organization_slug, role, event_at, applied_at, expires_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6)
     ON CONFLICT (organization_id) DO UPDATE SET
       organization_slug = COALESCE(?2, organization_slug), role = ?3, event_at = ?4, applied_at = ?5, expires_at = ?6`,
    event.organizationId,
    event.organizationSlug,
    event.role,
    event.occurredAt,
    now,
    now + PROCESSED_EVENT_TTL_MS,
  );
  host.record({
    type: "membership.changed",
    at: now,
    dedupe: `membership:${event.id}`,
    actor: { kind: "provider" },
    detail: {
      change: event.type.slice("organization_membership.".length),
      organizationId: event.organizationId,
      organizationSlug: event.organizationSlug,
      role: event.role,
    },
  });
  result.sessionsQueued = rewrites.enqueueLive(event.organizationId, now);
  // Same commit as the queued rows (no await in between): a crash from here on resumes the rewrites.
  host.scheduleAlarm(true);
  const drained = await rewrites.drain(host.rewriteLimit);
  host.scheduleAlarm();
  return { ...result, sessionsRewritten: drained.rewritten, pendingRewrites: rewrites.pending() };
}

/** Drops expired event ids and membership state no queued rewrite still needs (run by the alarm). */
export function purgeProviderEventState(sql: SqlStorage, now: number): void {
  sql.exec("DELETE FROM processed_events WHERE expires_at <= ?", now);
  sql.exec(
    "DELETE FROM provider_memberships WHERE expires_at <= ? AND organization_id NOT IN (SELECT organization_id FROM kv_rewrites)",
    now,
  );
}
