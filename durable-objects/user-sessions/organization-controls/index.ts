/**
 * @module
 * Organization controls as they reach one user's object: an organization's kill switch (its epoch
 * kept in `epochs.ts`, every session issued before it ended and refused for good) and what the
 * identity provider says about the user's organizations (`provider-events.ts`: membership changes
 * rewritten into every live session's KV record by the queue in `rewrites.ts`, and the provider's
 * own revocations). Never reachable over RPC; revocation itself is lifecycle's.
 */
import type { RevocationActor } from "../../../client-sdk/protocol/security-record";
import { objectNow } from "../../clock";
import type { SessionObject } from "../context";
import type { Lifecycle } from "../lifecycle";
import { notifyUpdated } from "../live";
import { countRows, type ProviderEvent, type ProviderEventResult, type RevocationResult } from "../schema";
import type { SecurityRecord } from "../security-record";
import { storeEpoch } from "./epochs";
import { applyProviderEvent, purgeProviderEventState } from "./provider-events";
import { RewriteQueue, rewriteLimit } from "./rewrites";

export type { Membership } from "./memberships";
export { PROCESSED_EVENT_TTL_MS } from "./provider-events";

/** Sessions whose memberships one invocation rewrites after a provider event, by default. */
export const DEFAULT_REWRITE_BATCH = 400;

export interface OrganizationControlsParts {
  lifecycle: Lifecycle;
  record: SecurityRecord;
  /** Sessions one invocation rewrites at most (`GATEHOUSE_REWRITE_BATCH`). */
  rewriteBatch: number;
}

export class OrganizationControls {
  readonly #object: SessionObject;
  readonly #parts: OrganizationControlsParts;
  readonly #rewrites: RewriteQueue;

  constructor(object: SessionObject, parts: OrganizationControlsParts) {
    this.#object = object;
    this.#parts = parts;
    const { lifecycle } = parts;
    this.#rewrites = new RewriteQueue({
      sql: object.sql,
      kv: object.kv,
      notify: (sessionId, memberships, at) => notifyUpdated(object.joined(sessionId), sessionId, memberships, at),
      giveUp: (ids) =>
        lifecycle.revokeSessions(ids, "provider", { kind: "system", label: "membership_rewrite_failed" }),
      redelete: (id) => lifecycle.rewriteMark(id),
    });
  }

  /**
   * An organization's kill switch reaching this member: the epoch is kept (`isActive` refuses
   * anything created before it, however its KV record fares) and every session issued before it is
   * revoked, the KV marks left to the alarm so the switch's fan-out never waits on KV.
   */
  endForOrganization(organizationId: string, epoch: number, actor: RevocationActor): Promise<RevocationResult> {
    const now = objectNow();
    storeEpoch(this.#object.sql, organizationId, epoch);
    // The revocation below schedules the alarm in this same synchronous block.
    this.#parts.record.record(
      {
        type: "organization.sessions_ended",
        at: now,
        actor,
        dedupe: `orgend:${organizationId}:${epoch}`,
        detail: { organizationId, epoch },
      },
      false,
    );
    const { lifecycle } = this.#parts;
    return lifecycle.revokeSessions(lifecycle.issuedBefore(epoch), "revoked_all", actor, {
      everyone: false,
      inlineKv: false,
      at: now,
    });
  }

  /** Applies one verified identity-provider event, once per event id (see provider-events.ts). */
  applyProviderEvent(event: ProviderEvent): Promise<ProviderEventResult> {
    const { own } = this.#object;
    const { record } = this.#parts;
    return applyProviderEvent(
      {
        sql: this.#object.sql,
        rewrites: this.#rewrites,
        rewriteLimit: rewriteLimit(0, this.#parts.rewriteBatch),
        revokeByProviderSession: (id) => own.revokeByProviderSession(id),
        revokeAll: (reason, actor) => own.revokeAll(reason, actor),
        revokeSessions: (ids, reason, actor, organizationId) =>
          this.#parts.lifecycle.revokeSessions(ids, reason, actor, organizationId ? { organizationId } : {}),
        record: (event) => void record.record(event),
        scheduleAlarm: (continuation) => this.#object.scheduleAlarm(continuation),
      },
      event,
    );
  }

  /** Counts of the provider-event state. */
  stats(): { processedEvents: number; providerMemberships: number; pendingRewrites: number } {
    const { sql } = this.#object;
    return {
      processedEvents: countRows(sql, "processed_events"),
      providerMemberships: countRows(sql, "provider_memberships"),
      pendingRewrites: this.#rewrites.pending(),
    };
  }

  /** Re-applies membership changes a session's just-written KV record may predate; returns how many were queued. */
  catchUp(sessionId: string, now: number): number {
    return this.#rewrites.catchUp(sessionId, now);
  }

  /** When the next queued rewrite is due, or null (for the alarm). */
  nextRewrite(): number | null {
    return this.#rewrites.nextDue();
  }

  /** The alarm's share: queued rewrites within what `kvOpsUsed` left of the invocation's KV budget. */
  async drainRewrites(kvOpsUsed: number): Promise<void> {
    await this.#rewrites.drain(rewriteLimit(kvOpsUsed, this.#parts.rewriteBatch));
  }

  /** The alarm's share: expired event ids and membership state no queued rewrite still needs. */
  purge(now: number): void {
    purgeProviderEventState(this.#object.sql, now);
  }
}
