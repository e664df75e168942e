/**
 * @module
 * How a `UserSessions` object applies one verified identity-provider event:
 * at most once per event id (`processed_events`, kept for the provider's retry
 * window), revocations through lifecycle (its own fan-out to the tabs): one provider session, every
 * session of a deleted person, or the sessions a directory deactivation may end (deactivation.ts:
 * none unless the person is a member of the directory's organization); membership changes
 * recorded per organization (`provider_memberships`, newest event wins) and
 * queued for every live session. Module functions, never reachable over RPC.
 */

import type { RevocationActor } from "../../../client-sdk/protocol/security-record";
import { objectNow } from "../../clock";
import type {
  DirectoryUserEventType,
  ProviderEvent,
  ProviderEventResult,
  RevocationReason,
  RevocationResult,
} from "../schema";
import type { NewEvent } from "../security-record/timeline";
import { deactivationScope } from "./deactivation";
import type { RewriteQueue } from "./rewrites";

/** Processed event ids (and membership ordering state) are kept this long: WorkOS retries for up to 3 days. */
export const PROCESSED_EVENT_TTL_MS = 4 * 24 * 3600 * 1000;

export interface ProviderEventHost {
  sql: SqlStorage;
  rewrites: RewriteQueue;
  /** Sessions this invocation may rewrite before the alarm takes over. */
  rewriteLimit: number;
  revokeByProviderSession(providerSessionId: string): Promise<RevocationResult>;
  revokeAll(reason: RevocationReason, actor: RevocationActor): Promise<RevocationResult>;
  /** Revokes these sessions (a directory deactivation's, in its organization's name, which the timeline keeps). */
  revokeSessions(
    ids: string[],
    reason: RevocationReason,
    actor: RevocationActor,
    organizationId?: string,
  ): Promise<RevocationResult>;
  /** Appends an event to the user's timeline. */
  record(event: NewEvent): void;
  /** `continuation`: before an inline run of queued work, so a crash mid-run resumes it (see context.ts). */
  scheduleAlarm(continuation?: boolean): void;
}

/** The events that end sessions: one provider session, a deleted person's, a directory deactivation's. */
type EndingSessions = Extract<ProviderEvent, { type: "session.revoked" | "user.deleted" | DirectoryUserEventType }>;

const endsSessions = (event: ProviderEvent): event is EndingSessions => !("role" in event);

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
  if (endsSessions(event)) return revokeFor(host, event, now, result);
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

/** Ends what the event names, then schedules the alarm (it purges the event id in time). */
async function revokeFor(
  host: ProviderEventHost,
  event: EndingSessions,
  now: number,
  result: ProviderEventResult,
): Promise<ProviderEventResult> {
  // The actor's label is the provider's event type: the timeline says which event ended them.
  const actor = { kind: "provider", label: event.type } as const;
  let revocation: Pick<RevocationResult, "revoked" | "socketsClosed">;
  if (event.type === "session.revoked") {
    revocation = await host.revokeByProviderSession(event.providerSessionId);
  } else if (event.type === "user.deleted") {
    revocation = await host.revokeAll("user_deleted", actor);
  } else {
    // Only where the directory's organization had this person, only what is in its name (deactivation.ts).
    const scope = deactivationScope(host.sql, event.organizationId, event.occurredAt, now);
    if (scope.verdict !== "member") {
      host.scheduleAlarm();
      return { ...result, outcome: scope.verdict, pendingRewrites: host.rewrites.pending() };
    }
    revocation =
      scope.sessionIds.length > 0
        ? await host.revokeSessions(scope.sessionIds, "user_deactivated", actor, event.organizationId)
        : { revoked: 0, socketsClosed: 0 };
  }
  // The account itself ended here (receivers hear of it even when no session was live): after its
  // sessions' revocation, so the timeline tells them in that order.
  if (event.type !== "session.revoked")
    host.record({
      type: "account.ended",
      at: now,
      dedupe: `account:${event.id}`,
      actor,
      detail:
        event.type === "user.deleted"
          ? { reason: "user_deleted" }
          : { reason: "user_deactivated", organizationId: event.organizationId },
    });
  host.scheduleAlarm();
  return {
    ...result,
    revoked: revocation.revoked,
    socketsClosed: revocation.socketsClosed,
    pendingRewrites: host.rewrites.pending(),
  };
}

/** Drops expired event ids and membership state no queued rewrite still needs (run by the alarm). */
export function purgeProviderEventState(sql: SqlStorage, now: number): void {
  sql.exec("DELETE FROM processed_events WHERE expires_at <= ?", now);
  sql.exec(
    "DELETE FROM provider_memberships WHERE expires_at <= ? AND organization_id NOT IN (SELECT organization_id FROM kv_rewrites)",
    now,
  );
}
