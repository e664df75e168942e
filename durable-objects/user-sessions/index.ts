/**
 * @module
 * `UserSessions`: one Durable Object per user (named by user id, SQLite
 * storage, partyserver with hibernation). It mirrors every live session of
 * the user, revokes them (KV records, tombstones, open tabs) in one place,
 * and holds the live channel of the user's tabs. Its RPC methods are the
 * API; `fetch` only accepts WebSocket upgrades that the auth worker has
 * already authenticated. Helpers sit behind `#private` so RPC cannot reach them.
 * Verified identity-provider events arrive through `applyProviderEvent`
 * (idempotent by event id; membership changes rewrite every live session).
 */
import { type Connection, type ConnectionContext, Server } from "partyserver";
import type { RegisterResult } from "../../client-sdk/protocol/lifecycle";
import type {
  KnownDevice,
  RevocationActor,
  RevocationReceipt,
  SecurityEventDeliveries,
  SessionLocation,
  TimelinePage,
} from "../../client-sdk/protocol/security-record";
import { nextAlarm } from "./alarms";
import {
  commitRevocation,
  DEFAULT_REVOCATION_BATCH,
  drainKvDeletes,
  pendingKvDeletes,
  sessionIds,
  toInfo,
} from "./lifecycle/revocation";
import {
  CLOSE_INTERNAL_ERROR,
  closedSocket,
  credentialOf,
  INTERNAL_ERROR_REASON,
  internalError,
  isUpgrade,
  joinedOf,
  type LiveCredential,
  type LiveState,
  liveTags,
  notifyRevoked,
  notifyUpdated,
  partyRequest,
  refusedUpgrade,
  sessionsChanged,
  sessionTag,
  stateOf,
} from "./live";
import { CLOSE_SESSION_INACTIVE, encodeMessage } from "./messages";
import type { Membership } from "./organization-controls/memberships";
import { applyProviderEvent, purgeProviderEventState } from "./organization-controls/provider-events";
import { RewriteQueue, rewriteLimit } from "./organization-controls/rewrites";
import { type AccessTokenAnswer, ProviderTokens, type TokenRefresher } from "./provider-access/provider-tokens";
import { consumeTicket, mintTicket, TICKET_TTL_MS } from "./provider-access/tickets";
import {
  migrate,
  type ProviderEvent,
  type ProviderEventResult,
  type RevocationReason,
  type RevocationResult,
  type SessionInfo,
  type SessionMirror,
} from "./schema";
import { deviceKey, listDevices, noteDevice, pruneDevices } from "./security-record/devices";
import {
  type Destinations,
  deliverDue,
  enqueueDeliveries,
  listDeliveries,
  nextDelivery,
} from "./security-record/outbox";
import { listReceipts, pruneReceipts, readReceipt, storeReceipt } from "./security-record/receipts";
import {
  appendEvent,
  DEFAULT_RETENTION_MS,
  type NewEvent,
  pageTimeline,
  pruneTimeline,
} from "./security-record/timeline";

export interface UserSessionsEnv {
  /** The session KV namespace, under the binding name in `UserSessions.sessionsBinding` (default SESSIONS). */
  SESSIONS?: KVNamespace;
  /** Where security events are also sent as signed webhooks (with `SECURITY_EVENTS_WEBHOOK_SECRET`). */
  SECURITY_EVENTS_WEBHOOK_URL?: string;
  SECURITY_EVENTS_WEBHOOK_SECRET?: string;
  /** KV deletes per invocation (production limit: 1,000 KV operations). Default 500. */
  GATEHOUSE_REVOCATION_BATCH?: string;
  /** Sessions whose memberships one invocation rewrites after a provider event. Default 400. */
  GATEHOUSE_REWRITE_BATCH?: string;
}

export { CONTINUATION_GUARD_MS } from "./alarms";
export { RECORD_HEADER, SESSION_HEADER, TICKET_HEADER } from "./live";
export {
  ACCESS_TOKEN_SKEW_MS,
  type AccessTokenAnswer,
  type RefreshTokens,
  type TokenRefresher,
} from "./provider-access/provider-tokens";
export { TICKET_TTL_MS } from "./provider-access/tickets";
export { receiptOwner } from "./security-record/receipts";

/** A refused use of a revoked session, or a lockout, is recorded at most once per session in this window. */
export const ATTEMPT_THROTTLE_MS = 10 * 60 * 1000;

const DEFAULT_REWRITE_BATCH = 400;

type ServerEnv = Cloudflare.Env & UserSessionsEnv & Record<string, unknown>;

export class UserSessions extends Server<ServerEnv> {
  static override options = { hibernate: true };

  /**
   * The binding name of the session KV namespace in this object's env (default `SESSIONS`).
   * `createAuthWorker({ bindings: { sessions } })` sets it; a host composing its own worker sets
   * it once at module level, or subclasses: `class People extends UserSessions { static override
   * sessionsBinding = "AUTH_KV" }`.
   */
  static sessionsBinding = "SESSIONS";
  /** The binding name of the Queue security events go to when it is bound (default `SECURITY_EVENTS`). */
  static securityEventsQueue = "SECURITY_EVENTS";
  /** How long timeline events, known devices and receipts are kept (default 90 days). */
  static retentionMs = DEFAULT_RETENTION_MS;
  /** Renews the identity provider's tokens (`createAuthWorker` sets it from the identity client); null: cannot. */
  static refreshTokens: TokenRefresher | null = null;

  readonly #batch: number;
  readonly #rewriteBatch: number;
  readonly #tokens: ProviderTokens;
  readonly #rewrites: RewriteQueue;
  /** Set when the last KV drain had failures, so the retry alarm backs off. */
  #drainFailed = false;

  readonly #kv: KVNamespace;
  readonly #destinations: Destinations;
  readonly #retentionMs: number;

  constructor(ctx: DurableObjectState, env: ServerEnv) {
    super(ctx, env);
    migrate(ctx.storage.sql);
    const settings = new.target as typeof UserSessions;
    this.#kv = sessionsNamespace(env, settings.sessionsBinding);
    this.#retentionMs = settings.retentionMs;
    this.#destinations = destinationsOf(env, settings.securityEventsQueue);
    const batch = Number(env.GATEHOUSE_REVOCATION_BATCH ?? DEFAULT_REVOCATION_BATCH);
    this.#batch = Number.isInteger(batch) && batch > 0 && batch <= 900 ? batch : DEFAULT_REVOCATION_BATCH;
    const rewriteBatch = Number(env.GATEHOUSE_REWRITE_BATCH ?? DEFAULT_REWRITE_BATCH);
    this.#rewriteBatch =
      Number.isInteger(rewriteBatch) && rewriteBatch > 0 && rewriteBatch <= 900 ? rewriteBatch : DEFAULT_REWRITE_BATCH;
    this.#tokens = new ProviderTokens(ctx.storage.sql, () => settings.refreshTokens, env);
    this.#rewrites = new RewriteQueue({
      sql: ctx.storage.sql,
      kv: this.#kv,
      notify: (sessionId, memberships, at) => this.#notifyUpdated(sessionId, memberships, at),
      giveUp: (ids) => this.#revoke(ids, "provider", { kind: "system", label: "membership_rewrite_failed" }),
      redelete: (id) => {
        ctx.storage.sql.exec("INSERT OR IGNORE INTO kv_deletes (id) VALUES (?)", id);
        this.#scheduleAlarm();
      },
    });
  }

  // ---- RPC ----------------------------------------------------------------

  /**
   * Mirrors a new session, atomically with the user's session policy: past `policy.maxSessions`
   * live sessions, the oldest are signed out (`evict-oldest`) or this one is refused
   * (`refuse-new`). Refuses an id that was revoked (tombstoned). Records the sign-in, and a new
   * device, on the timeline. Nothing awaits before the row is in: concurrent sign-ins each see
   * the others, so exactly the cap remain.
   */
  register(session: SessionMirror): RegisterResult {
    const sql = this.ctx.storage.sql;
    const now = objectNow();
    if (sql.exec("SELECT 1 FROM tombstones WHERE id = ?", session.id).toArray().length > 0) {
      return { registered: false, refusedBecause: "revoked" };
    }
    const cap = session.policy?.maxSessions ?? null;
    let evict: string[] = [];
    if (cap !== null) {
      const live = sql
        .exec<{ id: string }>(
          "SELECT id FROM sessions WHERE expires_at > ? AND id != ? ORDER BY created_at, id",
          now,
          session.id,
        )
        .toArray()
        .map((r) => r.id);
      if (live.length >= cap) {
        if (session.policy?.onLimit === "refuse-new") {
          // Once per device and place per 10 minutes: a burst of refused sign-ins is one event.
          const from = deviceKey(session.deviceClass, session.location);
          this.#record({
            type: "session.refused",
            at: now,
            dedupe: `limit:${from}:${Math.floor(now / ATTEMPT_THROTTLE_MS)}`,
            actor: { kind: "policy", label: "max_sessions" },
            device: session.device ?? null,
            ip: session.ip ?? null,
            location: session.location ?? null,
            detail: { reason: "session_limit", maxSessions: cap },
          });
          return { registered: false, refusedBecause: "session_limit" };
        }
        evict = live.slice(0, live.length - cap + 1);
      }
    }
    const key = deviceKey(session.deviceClass, session.location);
    sql.exec(
      `INSERT OR REPLACE INTO sessions (id, created_at, last_seen_at, expires_at, absolute_expires_at, organization_id, user_agent, ip, provider_session_id, device, device_key, location,
         access_token, access_expires_at, refresh_token, refresh_pending, impersonator)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`,
      session.id,
      session.createdAt,
      session.lastSeenAt,
      session.expiresAt,
      session.absoluteExpiresAt,
      session.organizationId ?? null,
      session.userAgent ?? null,
      session.ip ?? null,
      session.providerSessionId ?? null,
      session.device ?? null,
      key,
      session.location ? JSON.stringify(session.location) : null,
      session.tokens?.accessToken ?? null,
      session.tokens?.accessTokenExpiresAt ?? null,
      session.tokens?.refreshToken ?? null,
      session.impersonator ? JSON.stringify(session.impersonator) : null,
    );
    const newDevice = noteDevice(
      sql,
      key,
      session.device ?? "Unknown device",
      session.location ?? null,
      now,
      this.#retentionMs,
    );
    if (newDevice) sql.exec("UPDATE sessions SET new_device = 1 WHERE id = ?", session.id);
    if (session.record !== false) {
      const where = {
        sessionId: session.id,
        device: session.device ?? null,
        ip: session.ip ?? null,
        location: session.location ?? null,
      };
      this.#record(
        {
          ...where,
          type: "session.signed_in",
          at: now,
          dedupe: `signin:${session.id}`,
          detail: { organizationId: session.organizationId ?? null, newDevice },
        },
        false,
      );
      if (newDevice)
        this.#record(
          { ...where, type: "session.new_device", at: now, dedupe: `newdevice:${session.id}`, detail: {} },
          false,
        );
    }
    // Who signed in as this person is recorded whatever the timeline options say.
    if (session.impersonator) {
      this.#record(
        {
          sessionId: session.id,
          device: session.device ?? null,
          ip: session.ip ?? null,
          location: session.location ?? null,
          type: "session.impersonated",
          at: now,
          dedupe: `impersonated:${session.id}`,
          actor: { kind: "admin", label: session.impersonator.email.slice(0, 64) },
          detail: { impersonator: session.impersonator.email, reason: session.impersonator.reason },
        },
        false,
      );
    }
    // Its memberships may predate a provider change applied moments ago: re-apply those.
    this.#rewrites.catchUp(session.id, objectNow());
    if (evict.length > 0) {
      // Same synchronous block as the insert: the cap holds before any other request runs here.
      void this.#revoke(evict, "revoked", { kind: "policy", label: "max_sessions" }, { inlineKv: false, at: now });
    }
    this.#scheduleAlarm();
    this.#broadcastChanged();
    return { registered: true, newDevice, evicted: evict.length };
  }

  /**
   * Records use (the sliding refresh), called after the KV record was rewritten.
   * A no-op for unknown sessions; for a revoked one the KV delete runs again,
   * since the slide's write may have landed after the revocation's delete.
   */
  touch(sessionId: string, lastSeenAt: number, expiresAt: number): void {
    const sql = this.ctx.storage.sql;
    const updated = sql.exec(
      "UPDATE sessions SET last_seen_at = ?, expires_at = MIN(?, absolute_expires_at) WHERE id = ?",
      lastSeenAt,
      expiresAt,
      sessionId,
    ).rowsWritten;
    if (updated === 0 && sql.exec("SELECT 1 FROM tombstones WHERE id = ?", sessionId).toArray().length > 0) {
      sql.exec("INSERT OR IGNORE INTO kv_deletes (id) VALUES (?)", sessionId);
      this.#scheduleAlarm();
      return;
    }
    // The slide rewrote the KV record from a read that may predate a recent membership change.
    if (updated > 0 && this.#rewrites.catchUp(sessionId, objectNow()) > 0) this.#scheduleAlarm();
  }

  /** Every live (unexpired) session of the user, newest first. */
  list(now: number = objectNow()): SessionInfo[] {
    return this.ctx.storage.sql
      .exec("SELECT * FROM sessions WHERE expires_at > ? ORDER BY created_at DESC", now)
      .toArray()
      .map(toInfo);
  }

  /**
   * True while the session is mirrored here, unexpired, not revoked, and issued after every
   * organization kill switch this user's object was told of.
   */
  isActive(sessionId: string, now: number = objectNow()): boolean {
    return (
      this.ctx.storage.sql
        .exec(
          `SELECT 1 FROM sessions WHERE id = ? AND expires_at > ?
             AND created_at >= COALESCE((SELECT MAX(epoch) FROM organization_epochs), 0)`,
          sessionId,
          now,
        )
        .toArray().length > 0
    );
  }

  revoke(
    sessionId: string,
    reason: RevocationReason = "revoked",
    actor: RevocationActor = { kind: "user" },
  ): Promise<RevocationResult> {
    return this.#revoke([sessionId], reason, actor);
  }

  /**
   * Revokes the session only while it is active here (mirrored, unexpired, not revoked);
   * null otherwise. One call, so no other request can land between the check and the revocation.
   */
  async revokeActive(
    sessionId: string,
    now: number = objectNow(),
    actor: RevocationActor = { kind: "user" },
  ): Promise<RevocationResult | null> {
    if (!this.isActive(sessionId, now)) return null;
    return this.#revoke([sessionId], "revoked", actor);
  }

  revokeAll(
    reason: RevocationReason = "revoked_all",
    actor: RevocationActor = { kind: "user" },
  ): Promise<RevocationResult> {
    return this.#revoke(sessionIds(this.ctx.storage.sql, "1 = 1"), reason, actor, { everyone: true });
  }

  revokeOthers(keepSessionId: string, actor: RevocationActor = { kind: "user" }): Promise<RevocationResult> {
    return this.#revoke(sessionIds(this.ctx.storage.sql, "id != ?", keepSessionId), "signed_out_elsewhere", actor);
  }

  /** Revokes the session opened with this provider session id (WorkOS `sid`). */
  revokeByProviderSession(providerSessionId: string): Promise<RevocationResult> {
    return this.#revoke(sessionIds(this.ctx.storage.sql, "provider_session_id = ?", providerSessionId), "provider", {
      kind: "provider",
      label: "session.revoked",
    });
  }

  /**
   * An organization's kill switch reaching this member: every session issued before `epoch` is
   * ended, and stays refused (`isActive`) however its KV record fares. Strict mode refuses them
   * from the commit; the KV marks are written by the alarm, so the switch's fan-out never waits on KV.
   */
  async endForOrganization(organizationId: string, epoch: number, actor: RevocationActor): Promise<RevocationResult> {
    const sql = this.ctx.storage.sql;
    const now = objectNow();
    sql.exec(
      `INSERT INTO organization_epochs (organization_id, epoch) VALUES (?, ?)
       ON CONFLICT (organization_id) DO UPDATE SET epoch = MAX(epoch, excluded.epoch)`,
      organizationId,
      epoch,
    );
    // #revoke below schedules the alarm in this same synchronous block.
    this.#record(
      {
        type: "organization.sessions_ended",
        at: now,
        actor,
        dedupe: `orgend:${organizationId}:${epoch}`,
        detail: { organizationId, epoch },
      },
      false,
    );
    return this.#revoke(sessionIds(sql, "created_at < ?", epoch), "revoked_all", actor, {
      everyone: false,
      inlineKv: false,
      at: now,
    });
  }

  /** Records a use of one of this user's revoked sessions (its cookie presented again), at most once per session per 10 minutes. */
  recordRefused(sessionId: string, seen: { ip?: string; device?: string; location?: SessionLocation } = {}): boolean {
    const now = objectNow();
    return (
      this.#record({
        type: "session.refused",
        at: now,
        sessionId,
        dedupe: `refused:${sessionId}:${Math.floor(now / ATTEMPT_THROTTLE_MS)}`,
        ip: seen.ip ?? null,
        device: seen.device ?? null,
        location: seen.location ?? null,
        detail: { reason: "revoked" },
      }) !== null
    );
  }

  /** Records a rate-limit lockout of a request that carried this session, at most once per session and route family per 10 minutes. */
  recordLockout(sessionId: string, family: string, retryAfterSeconds: number, ip?: string): boolean {
    const now = objectNow();
    return (
      this.#record({
        type: "ratelimit.lockout",
        at: now,
        sessionId,
        ip: ip ?? null,
        dedupe: `lockout:${sessionId}:${family}:${Math.floor(now / ATTEMPT_THROTTLE_MS)}`,
        detail: { family, retryAfter: retryAfterSeconds },
      }) !== null
    );
  }

  /** The user's timeline, newest first, one page at a time. */
  timeline(options: { cursor?: string | null; limit?: number } = {}): TimelinePage {
    return pageTimeline(this.ctx.storage.sql, this.#userId(), { ...options, now: objectNow() });
  }

  /** The devices and places the user signed in from within the retention window. */
  devices(): KnownDevice[] {
    return listDevices(this.ctx.storage.sql, objectNow(), this.#retentionMs);
  }

  /** A receipt of this object's revocations, by id; null when unknown or pruned. */
  receipt(id: string): RevocationReceipt | null {
    return readReceipt(this.ctx.storage.sql, id, objectNow());
  }

  /** The latest receipts of this user's revocations (at most `limit`, 1–100), newest first. */
  receipts(limit = 20): RevocationReceipt[] {
    return listReceipts(this.ctx.storage.sql, this.#userId(), objectNow(), clampLimit(limit));
  }

  /** The deliveries of this user's security events still to make and the latest attempts. */
  deliveries(limit = 20): SecurityEventDeliveries {
    return listDeliveries(this.ctx.storage.sql, this.#userId(), clampLimit(limit));
  }

  /**
   * Applies one verified identity-provider event, once per event id (ids are
   * remembered for `PROCESSED_EVENT_TTL_MS`). `session.revoked` revokes the session
   * opened with that provider session, `user.deleted` every session, and a
   * membership event rewrites the memberships of every live session (KV record,
   * then a `session.updated` message to its tabs); past one batch, by alarm.
   */
  applyProviderEvent(event: ProviderEvent): Promise<ProviderEventResult> {
    return applyProviderEvent(
      {
        sql: this.ctx.storage.sql,
        rewrites: this.#rewrites,
        rewriteLimit: rewriteLimit(0, this.#rewriteBatch),
        revokeByProviderSession: (id) => this.revokeByProviderSession(id),
        revokeAll: () => this.revokeAll("user_deleted", { kind: "provider", label: "user.deleted" }),
        record: (event) => void this.#record(event),
        scheduleAlarm: (continuation) => this.#scheduleAlarm(continuation),
      },
      event,
    );
  }

  /** Counts of the provider-event state, for tests and operators. */
  providerEventStats(): { processedEvents: number; providerMemberships: number; pendingRewrites: number } {
    const count = (table: string) =>
      Number(this.ctx.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n);
    return {
      processedEvents: count("processed_events"),
      providerMemberships: count("provider_memberships"),
      pendingRewrites: this.#rewrites.pending(),
    };
  }

  /** Counts for tests and operators: rows, tombstones, pending KV deletes, open sockets. */
  stats(): {
    sessions: number;
    tombstones: number;
    pendingKvDeletes: number;
    sockets: number;
    events: number;
    pendingDeliveries: number;
  } {
    const count = (table: string) =>
      Number(this.ctx.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n);
    return {
      sessions: count("sessions"),
      tombstones: count("tombstones"),
      pendingKvDeletes: count("kv_deletes"),
      sockets: [...this.getConnections()].length,
      events: count("timeline"),
      pendingDeliveries: count("outbox"),
    };
  }

  // ---- partyserver hooks --------------------------------------------------

  /**
   * Admits an upgrade before partyserver sees it: the socket is accepted only with a credential
   * this object confirms (a session the worker verified that is active here, or a live ticket
   * spent now); anything else is refused without a socket. partyserver then sees a request this
   * object built (see `partyRequest`): no query, header or connection id of the client's.
   *
   * partyserver answers a throw during setup (a tag or connection workerd refuses, …) with the
   * stack: sent over a fresh socket when `Upgrade` is exactly `websocket`, else as a 500 body. We
   * pass the token as `WebSocket` (case-insensitive, RFC 6455 §4.1), so such a failure always
   * comes back as a 5xx we replace: a socket closed with 1011 and a generic reason, or a generic
   * 500. The stack goes to the log only.
   */
  override async fetch(request: Request): Promise<Response> {
    const upgrade = isUpgrade(request);
    try {
      const joined = upgrade ? await this.#admit(credentialOf(request)) : null;
      if (upgrade && !joined) return refusedUpgrade();
      const response = await super.fetch(partyRequest(request, joined));
      if (response.status < 500 || response.webSocket) return response;
      // partyserver's own error answer: its body is the stack (already logged by partyserver).
      await response.body?.cancel();
    } catch (err) {
      console.error("gatehouse: session object fetch failed", err instanceof Error ? err.message : err);
    }
    return upgrade ? closedSocket() : internalError();
  }

  override getConnectionTags(_connection: Connection, ctx: ConnectionContext): string[] {
    return liveTags(joinedOf(ctx.request));
  }

  override onConnect(connection: Connection, ctx: ConnectionContext): void {
    try {
      const joined = joinedOf(ctx.request);
      if (!joined) {
        connection.close(CLOSE_SESSION_INACTIVE, "session inactive");
        return;
      }
      connection.setState(joined);
      // A tab of another site learns that its ticket was taken.
      if (joined.via === "ticket") connection.send(encodeMessage({ type: "live.ready", sessionId: joined.sessionId }));
    } catch (err) {
      // Never partyserver's answer to a throw (the stack, sent over the socket): a generic close.
      console.error("gatehouse: live connection setup failed", err instanceof Error ? err.message : err);
      connection.close(CLOSE_INTERNAL_ERROR, INTERNAL_ERROR_REASON);
    }
  }

  override onError(connection: Connection, error: unknown): void {
    console.error("gatehouse: live connection error", error instanceof Error ? error.message : error);
    try {
      connection.close(CLOSE_INTERNAL_ERROR, INTERNAL_ERROR_REASON);
    } catch {
      // Already closed.
    }
  }

  override onMessage(connection: Connection, message: string | ArrayBuffer | ArrayBufferView): void {
    if (message === "ping" && stateOf(connection)) connection.send(encodeMessage({ type: "pong", at: new Date() }));
  }

  /**
   * A fresh access token of the identity provider for an active session: the cached one while it
   * has a minute left, else one refresh at a time (concurrent callers share it; see provider-tokens.ts).
   */
  async accessToken(sessionId: string): Promise<AccessTokenAnswer> {
    if (!this.isActive(sessionId)) return { ok: false, reason: "session_inactive" };
    return this.#tokens.accessToken(sessionId, objectNow());
  }

  /**
   * A live ticket's nonce for one of this user's active sessions: minted when a consuming app
   * renders a page; the worker signs it (with the user and expiry), the page's socket presents it
   * in its upgrade, and `fetch` spends it once. Null when the session is not active here.
   */
  async mintTicket(sessionId: string): Promise<{ ticket: string; expiresAt: number } | null> {
    const now = objectNow();
    if (!this.isActive(sessionId, now)) return null;
    return { ticket: await mintTicket(this.ctx.storage.sql, sessionId, now), expiresAt: now + TICKET_TTL_MS };
  }

  override onRequest(): Response {
    return Response.json(
      { error: "not_found", message: "Use the RPC methods or a WebSocket upgrade" },
      { status: 404 },
    );
  }

  override async onAlarm(): Promise<void> {
    const now = objectNow();
    const sql = this.ctx.storage.sql;
    // First: no socket outlives its session, however long a KV drain below takes.
    this.#closeEnded(now);
    const deletes = pendingKvDeletes(sql);
    if ((await this.#drainKvDeletes()) > 0) {
      // A revocation is still draining: continue at once, without an idle gap; the rest waits for the last batch.
      this.#scheduleAlarm();
      return;
    }
    // One invocation's KV budget is shared: the rewrites get what the deletes left.
    await this.#rewrites.drain(rewriteLimit(Math.min(deletes, this.#batch), this.#rewriteBatch));
    sql.exec("DELETE FROM sessions WHERE expires_at <= ?", now);
    sql.exec("DELETE FROM tombstones WHERE expires_at <= ?", now);
    purgeProviderEventState(sql, now);
    pruneTimeline(sql, now);
    pruneDevices(sql, now, this.#retentionMs);
    pruneReceipts(sql, now);
    await deliverDue(sql, this.#userId(), this.#destinations, now);
    this.#scheduleAlarm();
  }

  // ---- helpers (not reachable over RPC) ------------------------------------

  /**
   * Revokes `ids`: commits tombstones and queued KV marks (strict mode refuses them from here), tells
   * and closes their tabs, keeps a receipt, records it on the timeline, then writes the KV marks
   * inline (`inlineKv`, default) or leaves them to the alarm.
   */
  async #revoke(
    ids: string[],
    reason: RevocationReason,
    actor: RevocationActor,
    options: { everyone?: boolean; inlineKv?: boolean; at?: number } = {},
  ): Promise<RevocationResult> {
    const started = options.at ?? objectNow();
    const now = objectNow();
    // One session: the timeline names its device and place (read before the commit removes its row).
    const single =
      ids.length === 1
        ? this.ctx.storage.sql
            .exec<{ device: string | null; location: string | null }>(
              "SELECT device, location FROM sessions WHERE id = ?",
              ids[0]!,
            )
            .toArray()[0]
        : undefined;
    // Durable state first, atomically: from here on the sessions are invalid in strict mode.
    const revoked = commitRevocation(this.ctx.storage, ids, reason, now);
    const refusedAfterMs = Math.max(0, objectNow() - started);
    // Same commit as the rows above (no await in between): a crash from here on resumes the KV writes.
    this.#scheduleAlarm(options.inlineKv !== false);
    const socketsClosed = notifyRevoked(
      this.#joined(ids.length === 1 && options.everyone !== true ? ids[0] : undefined),
      ids,
      reason,
      now,
      options.everyone ?? false,
    );
    let receiptId: string | undefined;
    if (revoked > 0) {
      const sql = this.ctx.storage.sql;
      receiptId = storeReceipt(
        sql,
        this.#userId(),
        { at: now, actor, sessionIds: ids, revoked, socketsClosed, refusedAfterMs },
        this.#retentionMs,
      );
      this.#record(
        {
          type:
            reason === "logout" || reason === "replaced" || reason === "replaced_by_other_user"
              ? "session.signed_out"
              : "session.revoked",
          at: now,
          sessionId: ids.length === 1 ? ids[0]! : null,
          device: single?.device ?? null,
          location: single?.location ? (JSON.parse(single.location) as SessionLocation) : null,
          actor,
          detail: { receiptId, sessions: revoked, reason },
        },
        false, // scheduled below, once the KV marks are written (the continuation alarm covers a crash)
      );
      this.#broadcastChanged();
    }
    const pending = options.inlineKv === false ? pendingKvDeletes(this.ctx.storage.sql) : await this.#drainKvDeletes();
    this.#scheduleAlarm();
    return { ...(receiptId ? { receiptId } : {}), revoked, socketsClosed, pendingKvDeletes: pending, refusedAfterMs };
  }

  /** Appends a timeline event, queues its deliveries and tells the user's open tabs; null for a duplicate. */
  #record(event: NewEvent, schedule = true): ReturnType<typeof appendEvent> {
    const sql = this.ctx.storage.sql;
    const stored = appendEvent(sql, this.#userId(), event, this.#retentionMs);
    if (!stored) return null;
    enqueueDeliveries(sql, stored.seq, this.#destinations, event.at);
    const message = encodeMessage({ type: "timeline.appended", event: stored });
    // Only sockets this object admitted with the record (the user's own cookie, from our pages).
    for (const connection of this.#joined()) if (stateOf(connection)?.record === true) connection.send(message);
    // A caller that schedules the alarm itself, in the same synchronous block, passes false.
    if (schedule) this.#scheduleAlarm();
    return stored;
  }

  /** This object's user: the name it was addressed by. */
  #userId(): string {
    const name = this.ctx.id.name;
    if (!name) throw new Error("UserSessions must be addressed by idFromName(userId)");
    return name;
  }

  #notifyUpdated(sessionId: string, memberships: Membership[], at: number): void {
    notifyUpdated(this.#joined(sessionId), sessionId, memberships, at);
  }

  #broadcastChanged(): void {
    const message = sessionsChanged();
    for (const connection of this.#joined()) connection.send(message);
  }

  /** The sockets joined to a session (to `sessionId`, or any): every accepted socket, by its admitted state. */
  *#joined(sessionId?: string): Generator<Connection> {
    const sockets = sessionId === undefined ? this.getConnections() : this.getConnections(sessionTag(sessionId));
    for (const connection of sockets) {
      const joined = stateOf(connection)?.sessionId;
      if (joined && (sessionId === undefined || joined === sessionId)) yield connection;
    }
  }

  /** The join an upgrade's credential earns here, or null: a ticket is spent whatever the answer. */
  async #admit(credential: LiveCredential): Promise<LiveState | null> {
    if (!credential) return null;
    const now = objectNow();
    if (credential.kind === "ticket") {
      const sessionId = await consumeTicket(this.ctx.storage.sql, credential.nonce, now);
      return sessionId && this.isActive(sessionId, objectNow()) ? { sessionId, record: false, via: "ticket" } : null;
    }
    return this.isActive(credential.sessionId, now)
      ? { sessionId: credential.sessionId, record: credential.record, via: "cookie" }
      : null;
  }

  /**
   * Closes every socket whose session is no longer active here (expired, or ended by a kill switch
   * the object was told of), and any socket that joined no session: run by the alarm, which fires
   * at the earliest session expiry, so no socket outlives its credential by more than that.
   */
  #closeEnded(now: number): void {
    const keep = new Set<WebSocket>();
    for (const connection of this.#joined()) {
      if (this.isActive(stateOf(connection)!.sessionId, now)) keep.add(connection);
    }
    // Every socket the runtime holds for this object, partyserver's or not.
    for (const socket of this.ctx.getWebSockets()) {
      if (keep.has(socket)) continue;
      try {
        socket.close(CLOSE_SESSION_INACTIVE, "session inactive");
      } catch {
        // Already gone.
      }
    }
  }

  /** Deletes up to one batch of pending KV records; returns how many are still pending. */
  async #drainKvDeletes(): Promise<number> {
    const sql = this.ctx.storage.sql;
    const { pending, failed } = await drainKvDeletes(sql, this.#kv, this.#batch, this.#userId(), objectNow());
    this.#drainFailed = failed;
    return pending;
  }

  /**
   * Sets the one alarm (see alarms.ts). Never awaited: the alarm write joins the storage commit
   * of the caller's rows. `continuation`: before a job's inline run, so a crash mid-run resumes it.
   */
  #scheduleAlarm(continuation = false): void {
    const at = nextAlarm(this.ctx.storage.sql, {
      now: objectNow(),
      nextRewrite: this.#rewrites.nextDue(),
      nextDelivery: nextDelivery(this.ctx.storage.sql),
      drainFailed: this.#drainFailed,
      continuation,
    });
    if (at === null) this.ctx.storage.deleteAlarm().catch(alarmFailed);
    else this.ctx.storage.setAlarm(at).catch(alarmFailed);
  }
}

/** Where this object's security events go: the Queue if bound, the webhook if its URL and secret are set. */
function destinationsOf(env: Readonly<Record<string, unknown>>, queueBinding: string): Destinations {
  const queue = env[queueBinding];
  const url = env.SECURITY_EVENTS_WEBHOOK_URL;
  const secret = env.SECURITY_EVENTS_WEBHOOK_SECRET;
  return {
    queue: queue && typeof (queue as Queue).sendBatch === "function" ? (queue as Queue<never>) : null,
    webhook: typeof url === "string" && url && typeof secret === "string" && secret ? { url, secret } : null,
  };
}

/** A failed alarm write is logged; the next write to the object schedules again. */
function alarmFailed(err: unknown): void {
  console.error("gatehouse: could not schedule the session object's alarm", err instanceof Error ? err.message : err);
}

export type { Membership } from "./organization-controls/memberships";
export { PROCESSED_EVENT_TTL_MS } from "./organization-controls/provider-events";
export type {
  MembershipEventType,
  ProviderEvent,
  ProviderEventResult,
  RevocationReason,
  RevocationResult,
  SessionInfo,
  SessionMirror,
} from "./schema";

import { objectNow } from "../clock";

/**
 * The KV namespace bound under `name`. A missing one is not fatal here: every KV call then fails,
 * the deletes stay queued in SQLite and are retried by alarm, and the log names the binding.
 */
function sessionsNamespace(env: Readonly<Record<string, unknown>>, name: string): KVNamespace {
  const kv = env[name];
  if (kv && typeof (kv as KVNamespace).delete === "function") return kv as KVNamespace;
  const problem = `gatehouse: UserSessions has no KV namespace bound as ${name} (set UserSessions.sessionsBinding)`;
  console.error(problem);
  const refuse = () => Promise.reject(new Error(problem));
  return { get: refuse, put: refuse, delete: refuse, list: refuse, getWithMetadata: refuse } as unknown as KVNamespace;
}

/** A page size an operator may ask for: a whole number from 1 to 100 (anything else: 20). */
function clampLimit(limit: number): number {
  return Number.isInteger(limit) && limit >= 1 && limit <= 100 ? limit : 20;
}
