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
import { nextAlarm } from "./alarms";
import {
  CLOSE_INTERNAL_ERROR,
  closedSocket,
  INTERNAL_ERROR_REASON,
  internalError,
  notifyRevoked,
  notifyUpdated,
  partyRequest,
  SESSION_HEADER,
  sessionsChanged,
} from "./live";
import type { Membership } from "./memberships";
import { CLOSE_SESSION_INACTIVE, encodeMessage } from "./messages";
import { applyProviderEvent, purgeProviderEventState } from "./provider-events";
import { commitRevocation, drainKvDeletes, pendingKvDeletes, sessionIds, toInfo } from "./revocation";
import { RewriteQueue, rewriteLimit } from "./rewrites";
import {
  type ProviderEvent,
  type ProviderEventResult,
  type RevocationReason,
  type RevocationResult,
  SCHEMA,
  type SessionInfo,
  type SessionMirror,
} from "./schema";

export interface UserSessionsEnv {
  /** The session KV namespace, under the binding name in `UserSessions.sessionsBinding` (default SESSIONS). */
  SESSIONS?: KVNamespace;
  /** KV deletes per invocation (production limit: 1,000 KV operations). Default 500. */
  GATEHOUSE_REVOCATION_BATCH?: string;
  /** Sessions whose memberships one invocation rewrites after a provider event. Default 400. */
  GATEHOUSE_REWRITE_BATCH?: string;
}

export { CONTINUATION_GUARD_MS } from "./alarms";
export { SESSION_HEADER } from "./live";

const DEFAULT_BATCH = 500;
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

  readonly #batch: number;
  readonly #rewriteBatch: number;
  readonly #rewrites: RewriteQueue;
  /** Set when the last KV drain had failures, so the retry alarm backs off. */
  #drainFailed = false;

  readonly #kv: KVNamespace;

  constructor(ctx: DurableObjectState, env: ServerEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(SCHEMA);
    this.#kv = sessionsNamespace(env, (new.target as typeof UserSessions).sessionsBinding);
    const batch = Number(env.GATEHOUSE_REVOCATION_BATCH ?? DEFAULT_BATCH);
    this.#batch = Number.isInteger(batch) && batch > 0 && batch <= 900 ? batch : DEFAULT_BATCH;
    const rewriteBatch = Number(env.GATEHOUSE_REWRITE_BATCH ?? DEFAULT_REWRITE_BATCH);
    this.#rewriteBatch =
      Number.isInteger(rewriteBatch) && rewriteBatch > 0 && rewriteBatch <= 900 ? rewriteBatch : DEFAULT_REWRITE_BATCH;
    this.#rewrites = new RewriteQueue({
      sql: ctx.storage.sql,
      kv: this.#kv,
      notify: (sessionId, memberships, at) => this.#notifyUpdated(sessionId, memberships, at),
      giveUp: (ids) => this.#revoke(ids, "provider"),
      redelete: (id) => {
        ctx.storage.sql.exec("INSERT OR IGNORE INTO kv_deletes (id) VALUES (?)", id);
        this.#scheduleAlarm();
      },
    });
  }

  // ---- RPC ----------------------------------------------------------------

  /** Mirrors a new session. Refuses an id that was revoked (tombstoned). */
  register(session: SessionMirror): { registered: boolean } {
    const sql = this.ctx.storage.sql;
    if (sql.exec("SELECT 1 FROM tombstones WHERE id = ?", session.id).toArray().length > 0)
      return { registered: false };
    sql.exec(
      `INSERT OR REPLACE INTO sessions (id, created_at, last_seen_at, expires_at, absolute_expires_at, organization_id, user_agent, ip, provider_session_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      session.id,
      session.createdAt,
      session.lastSeenAt,
      session.expiresAt,
      session.absoluteExpiresAt,
      session.organizationId ?? null,
      session.userAgent ?? null,
      session.ip ?? null,
      session.providerSessionId ?? null,
    );
    // Its memberships may predate a provider change applied moments ago: re-apply those.
    this.#rewrites.catchUp(session.id, objectNow());
    this.#scheduleAlarm();
    this.#broadcastChanged();
    return { registered: true };
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

  /** True while the session is mirrored here, unexpired and not revoked. */
  isActive(sessionId: string, now: number = objectNow()): boolean {
    return (
      this.ctx.storage.sql.exec("SELECT 1 FROM sessions WHERE id = ? AND expires_at > ?", sessionId, now).toArray()
        .length > 0
    );
  }

  revoke(sessionId: string, reason: RevocationReason = "revoked"): Promise<RevocationResult> {
    return this.#revoke([sessionId], reason);
  }

  /**
   * Revokes the session only while it is active here (mirrored, unexpired, not revoked);
   * null otherwise. One call, so no other request can land between the check and the revocation.
   */
  async revokeActive(sessionId: string, now: number = objectNow()): Promise<RevocationResult | null> {
    if (!this.isActive(sessionId, now)) return null;
    return this.#revoke([sessionId], "revoked");
  }

  revokeAll(reason: RevocationReason = "revoked_all"): Promise<RevocationResult> {
    return this.#revoke(sessionIds(this.ctx.storage.sql, "1 = 1"), reason, true);
  }

  revokeOthers(keepSessionId: string): Promise<RevocationResult> {
    return this.#revoke(sessionIds(this.ctx.storage.sql, "id != ?", keepSessionId), "signed_out_elsewhere");
  }

  /** Revokes the session opened with this provider session id (WorkOS `sid`). */
  revokeByProviderSession(providerSessionId: string): Promise<RevocationResult> {
    return this.#revoke(sessionIds(this.ctx.storage.sql, "provider_session_id = ?", providerSessionId), "provider");
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
        revokeAll: () => this.revokeAll("user_deleted"),
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
  stats(): { sessions: number; tombstones: number; pendingKvDeletes: number; sockets: number } {
    const count = (table: string) =>
      Number(this.ctx.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n);
    return {
      sessions: count("sessions"),
      tombstones: count("tombstones"),
      pendingKvDeletes: count("kv_deletes"),
      sockets: [...this.getConnections()].length,
    };
  }

  // ---- partyserver hooks --------------------------------------------------

  /**
   * Only the upgrade, the path and our session header reach partyserver: its own control headers
   * (`x-partykit-props`, `x-partykit-room`, …) are never taken from a request, so nothing a client
   * could have slipped past a worker is parsed here.
   *
   * partyserver answers a throw during setup (no name, a tag or connection workerd refuses, …) with
   * the stack: sent over a fresh socket when `Upgrade` is exactly `websocket`, else as a 500 body.
   * We pass the token as `WebSocket` (case-insensitive, RFC 6455 §4.1; partyserver routes on the
   * lowercased value), so such a failure always comes back as a 5xx we can replace: a socket closed
   * with 1011 and a generic reason, or a generic 500. The stack goes to the log only.
   */
  override async fetch(request: Request): Promise<Response> {
    const party = partyRequest(request);
    try {
      const response = await super.fetch(party.request);
      if (response.status < 500 || response.webSocket) return response;
      // partyserver's own error answer: its body is the stack (already logged by partyserver).
      await response.body?.cancel();
    } catch (err) {
      console.error("gatehouse: session object fetch failed", err instanceof Error ? err.message : err);
    }
    return party.upgrade ? closedSocket() : internalError();
  }

  override getConnectionTags(_connection: Connection, ctx: ConnectionContext): string[] {
    const sessionId = ctx.request.headers.get(SESSION_HEADER);
    return sessionId ? [`s:${sessionId}`] : [];
  }

  override onConnect(connection: Connection, ctx: ConnectionContext): void {
    try {
      const sessionId = ctx.request.headers.get(SESSION_HEADER);
      if (!sessionId || !this.isActive(sessionId)) {
        connection.close(CLOSE_SESSION_INACTIVE, "session inactive");
        return;
      }
      connection.setState({ sessionId });
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
    if (message === "ping") connection.send(encodeMessage({ type: "pong", at: new Date() }));
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
    const deletes = pendingKvDeletes(sql);
    await this.#drainKvDeletes();
    // One invocation's KV budget is shared: the rewrites get what the deletes left.
    await this.#rewrites.drain(rewriteLimit(Math.min(deletes, this.#batch), this.#rewriteBatch));
    sql.exec("DELETE FROM sessions WHERE expires_at <= ?", now);
    sql.exec("DELETE FROM tombstones WHERE expires_at <= ?", now);
    purgeProviderEventState(sql, now);
    this.#scheduleAlarm();
  }

  // ---- helpers (not reachable over RPC) ------------------------------------

  async #revoke(ids: string[], reason: RevocationReason, everyone = false): Promise<RevocationResult> {
    const now = objectNow();
    // Durable state first, atomically: from here on the sessions are invalid in strict mode.
    const revoked = commitRevocation(this.ctx.storage, ids, reason, now);
    // Same commit as the rows above (no await in between): a crash from here on resumes the deletes.
    this.#scheduleAlarm(true);
    const socketsClosed = notifyRevoked(this.getConnections<{ sessionId: string }>(), ids, reason, now, everyone);
    if (revoked > 0) this.#broadcastChanged();
    const pendingKvDeletes = await this.#drainKvDeletes();
    this.#scheduleAlarm();
    return { revoked, socketsClosed, pendingKvDeletes };
  }

  #notifyUpdated(sessionId: string, memberships: Membership[], at: number): void {
    notifyUpdated(this.getConnections(`s:${sessionId}`), sessionId, memberships, at);
  }

  #broadcastChanged(): void {
    this.broadcast(sessionsChanged());
  }

  /** Deletes up to one batch of pending KV records; returns how many are still pending. */
  async #drainKvDeletes(): Promise<number> {
    const { pending, failed } = await drainKvDeletes(this.ctx.storage.sql, this.#kv, this.#batch);
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
      drainFailed: this.#drainFailed,
      continuation,
    });
    if (at === null) this.ctx.storage.deleteAlarm().catch(alarmFailed);
    else this.ctx.storage.setAlarm(at).catch(alarmFailed);
  }
}

/** A failed alarm write is logged; the next write to the object schedules again. */
function alarmFailed(err: unknown): void {
  console.error("gatehouse: could not schedule the session object's alarm", err instanceof Error ? err.message : err);
}

export type { Membership } from "./memberships";
export { PROCESSED_EVENT_TTL_MS } from "./provider-events";
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
