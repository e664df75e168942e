/**
 * @module
 * `SessionConnections`: the app's per-user registry Durable Object (addressed `getByName(userId)`):
 * which holder objects accepted sockets under which of the user's sessions (`holders`), and which
 * sessions ended (`ended` tombstones, so a socket registered after its notice is refused). A notice
 * calls only the holders registered for its ids, each with only its own ids (a shared room holds
 * other users' sockets too), so an object holding none of them is never woken.
 * It also holds the watch sockets of plain workers' event streams (`sessionEventStream`):
 * hibernatable, tagged with their session, closed by tag on a notice (4001 at once when the session
 * is already tombstoned). SQLite only, no alarm: expired rows are purged on each write. Tables: STORAGE.md.
 */
import { DurableObject } from "cloudflare:workers";
import { withDeadline } from "../core/deadline";
import { inPool } from "../core/pool";
import { releaseRpcResult } from "../core/rpc";
import { APP_CLOSE, type SessionsEndedNotice } from "../protocol/app-connections";
import {
  BINDING_NAME,
  type HolderRegistration,
  namespaceOf,
  type SessionHolder,
  WATCH_SESSION_HEADER,
  WATCH_URL,
} from "./bindings";
import { AppConnectionsError } from "./errors";
import { MAX_ID_LENGTH, parseNotice } from "./notice";
import { sessionTag } from "./tags";

const WATCH_PATH = new URL(WATCH_URL).pathname;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface SessionConnectionsOptions {
  /** The clock (ms). Default `Date.now`; a subclass passes its own in tests. */
  now?: () => number;
  /**
   * A holder row is kept at least this long after it registers (default 30 days, the default
   * absolute session lifetime), or until its session's expiry if later; a notice deletes it earlier.
   */
  holderKeptMs?: number;
  /** A tombstone (revoked session) is kept this long after the notice (default 1 day). */
  endedKeptMs?: number;
  /** Each holder call must answer within this (default 10 s), else the notice fails and is retried. */
  holderTimeoutMs?: number;
  /** Holders called at once (default 16). */
  concurrency?: number;
}

interface HolderRow extends Record<string, SqlStorageValue> {
  row: number;
  session_id: string;
  binding: string;
  name: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS holders (
  session_id TEXT NOT NULL,
  binding TEXT NOT NULL,
  name TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, binding, name)
);
CREATE INDEX IF NOT EXISTS holders_expiry ON holders (expires_at);
CREATE TABLE IF NOT EXISTS ended (
  session_id TEXT PRIMARY KEY,
  until INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS ended_until ON ended (until);`;

/**
 * @example
 * ```ts
 * // worker.ts of the app: export the registry; wrangler.toml binds it as GATEHOUSE_CONNECTIONS
 * // and lists it in a migration's new_sqlite_classes.
 * export { SessionConnections, GatehouseRevocations } from "gatehouse-workers/connections";
 * ```
 */
export class SessionConnections extends DurableObject<object> {
  readonly #now: () => number;
  readonly #holderKeptMs: number;
  readonly #endedKeptMs: number;
  readonly #holderTimeoutMs: number;
  readonly #concurrency: number;

  constructor(ctx: DurableObjectState, env: object, options: SessionConnectionsOptions = {}) {
    super(ctx, env);
    this.#now = options.now ?? Date.now;
    this.#holderKeptMs = options.holderKeptMs ?? 30 * DAY_MS;
    this.#endedKeptMs = options.endedKeptMs ?? DAY_MS;
    this.#holderTimeoutMs = options.holderTimeoutMs ?? 10_000;
    this.#concurrency = options.concurrency ?? 16;
    ctx.storage.sql.exec(SCHEMA);
  }

  /**
   * Records that `binding`/`name` holds a socket of `sessionId`: `"ended"` when that session's
   * revocation already arrived (the holder closes the socket 4001), else `"ok"`.
   */
  async register(registration: HolderRegistration): Promise<"ok" | "ended"> {
    const r = validRegistration(registration);
    namespaceOf<SessionHolder>(this.env, r.binding, "SessionConnections.register");
    const now = this.#now();
    this.#purge(now);
    const sql = this.ctx.storage.sql;
    if (sql.exec("SELECT 1 FROM ended WHERE session_id = ? AND until > ?", r.sessionId, now).toArray().length > 0) {
      return "ended";
    }
    sql.exec(
      "INSERT OR REPLACE INTO holders (session_id, binding, name, expires_at) VALUES (?, ?, ?, ?)",
      r.sessionId,
      r.binding,
      r.name,
      Math.max(r.expiresAt, now + this.#holderKeptMs),
    );
    return "ok";
  }

  /**
   * The watch upgrade of `sessionEventStream` (through the binding only: a Durable Object has no
   * route): accepts a hibernatable socket tagged with the header's session, closed 4001 at once
   * when that session's revocation already arrived. Anything else: 404, 426 or 400.
   */
  override async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname !== WATCH_PATH) return new Response("Not found", { status: 404 });
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("Expected a WebSocket upgrade", { status: 426 });
    }
    const sessionId = request.headers.get(WATCH_SESSION_HEADER);
    if (sessionId === null || sessionId.length === 0 || sessionId.length > MAX_ID_LENGTH) {
      return new Response("Bad request", { status: 400 });
    }
    const ended =
      this.ctx.storage.sql
        .exec("SELECT 1 FROM ended WHERE session_id = ? AND until > ?", sessionId, this.#now())
        .toArray().length > 0;
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    // Checked and accepted in one synchronous block: a notice runs before (tombstone) or after (tag).
    this.ctx.acceptWebSocket(server, [sessionTag(sessionId)]);
    if (ended) server.close(APP_CLOSE.revoked.code, APP_CLOSE.revoked.reason);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** A watch socket's stream ended (the client left): answer its close. */
  override webSocketClose(ws: WebSocket): void {
    try {
      ws.close(1000, "stream ended");
    } catch {
      // Already answered (web_socket_auto_reply_to_close).
    }
  }

  /**
   * Tombstones revoked sessions, closes this registry's own watch sockets of the notice's ids
   * (event streams; by tag, counted in `closed`), then calls each holder registered for the notice's ids once and
   * deletes the rows of those that answered. Throws `holder_unavailable` when any did not (the auth
   * worker retries the notice; a holder closing again finds nothing left to close).
   */
  async sessionsEnded(notice: SessionsEndedNotice): Promise<{ closed: number }> {
    const parsed = parseNotice(notice);
    if (!parsed.ok) throw new AppConnectionsError("invalid_notice");
    const n = parsed.value;
    const ids = JSON.stringify(n.sessionIds);
    const now = this.#now();
    this.#purge(now);
    const sql = this.ctx.storage.sql;
    // A device proof missing ends no session: the real device may reconnect, so no tombstone.
    if (n.kind === "revoked") {
      sql.exec(
        `INSERT INTO ended (session_id, until) SELECT value, ? FROM json_each(?) WHERE true
         ON CONFLICT (session_id) DO UPDATE SET until = max(until, excluded.until)`,
        now + this.#endedKeptMs,
        ids,
      );
    }
    // The watch sockets here are this user's only (opened with the session resolved for them).
    const { code, reason } = n.kind === "revoked" ? APP_CLOSE.revoked : APP_CLOSE.deviceProofMissing;
    let closed = 0;
    for (const id of n.sessionIds) {
      for (const ws of this.ctx.getWebSockets(sessionTag(id))) {
        if (ws.readyState !== WebSocket.OPEN) continue;
        try {
          ws.close(code, reason);
          closed++;
        } catch {
          // Closed by the other side meanwhile.
        }
      }
    }
    const rows = sql
      .exec<HolderRow>(
        "SELECT rowid AS row, session_id, binding, name FROM holders WHERE session_id IN (SELECT value FROM json_each(?))",
        ids,
      )
      .toArray();
    const holders = new Map<string, { binding: string; name: string; rows: number[]; sessionIds: Set<string> }>();
    for (const row of rows) {
      const key = JSON.stringify([row.binding, row.name]);
      const entry = holders.get(key) ?? { binding: row.binding, name: row.name, rows: [], sessionIds: new Set() };
      entry.rows.push(row.row);
      entry.sessionIds.add(row.session_id);
      holders.set(key, entry);
    }
    // Each holder hears only the ids this user registered with it: a shared room also holds other
    // users' sockets, and a holder closes by tag whatever ids it is given.
    const answers = await inPool([...holders.values()], this.#concurrency, (holder) =>
      withDeadline(
        namespaceOf<SessionHolder>(this.env, holder.binding, "SessionConnections.sessionsEnded")
          .getByName(holder.name)
          .gatehouseSessionsEnded({ ...n, sessionIds: [...holder.sessionIds] })
          .then(releaseRpcResult),
        this.#holderTimeoutMs,
        () => new AppConnectionsError("holder_unavailable"),
      ),
    );
    const failed: unknown[] = [];
    for (const [i, holder] of [...holders.values()].entries()) {
      const answer = answers[i]!;
      if (answer.status === "rejected") {
        failed.push(answer.reason);
        continue;
      }
      closed += typeof answer.value?.closed === "number" ? answer.value.closed : 0;
      // By rowid: a row the same holder re-registered meanwhile (a reconnect) is a new row and stays.
      sql.exec("DELETE FROM holders WHERE rowid IN (SELECT value FROM json_each(?))", JSON.stringify(holder.rows));
    }
    if (failed.length > 0) {
      throw new AppConnectionsError("holder_unavailable", {
        message: `${failed.length} of ${holders.size} holders did not answer the notice`,
        cause: failed[0],
      });
    }
    return { closed };
  }

  #purge(now: number): void {
    this.ctx.storage.sql.exec("DELETE FROM ended WHERE until <= ?", now);
    this.ctx.storage.sql.exec("DELETE FROM holders WHERE expires_at <= ?", now);
  }
}

function validRegistration(value: unknown): HolderRegistration {
  const r = (typeof value === "object" && value !== null ? value : {}) as { [K in keyof HolderRegistration]?: unknown };
  const id = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= MAX_ID_LENGTH;
  if (
    !id(r.sessionId) ||
    typeof r.binding !== "string" ||
    !BINDING_NAME.test(r.binding) ||
    !id(r.name) ||
    typeof r.expiresAt !== "number" ||
    !Number.isFinite(r.expiresAt)
  ) {
    throw new AppConnectionsError("invalid_registration");
  }
  return { sessionId: r.sessionId, binding: r.binding, name: r.name, expiresAt: r.expiresAt };
}
