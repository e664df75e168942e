/**
 * @module
 * `LiveCounter`: the example consumer's own live feature, one Durable Object (named "global") with
 * hibernating WebSockets and a count in SQLite. Each `+1` from a socket adds one and sends the new
 * count to every socket. `SessionSockets` accepts only a signed-in request's socket, tagged with its
 * session, so a revocation closes it (4001) through the registry (`SessionConnections`) and the
 * `GatehouseRevocations` entrypoint the auth worker calls. It never accepts a socket without a session.
 */
import { DurableObject } from "cloudflare:workers";
import { AppConnectionsError, SessionSockets, type SessionsEndedNotice } from "gatehouse-workers/connections";
import type { ConsumerEnv } from "./env";

/** The one counter every signed-in person shares. */
export const LIVE_COUNTER_NAME = "global";
/** What a client sends to add one (anything else is ignored). */
export const INCREMENT = "+1";

export class LiveCounter extends DurableObject<ConsumerEnv> {
  // `binding`: this class's own binding, so the registry can call it back by name.
  readonly #sockets = new SessionSockets(this.ctx, this.env, { binding: "LIVE_COUNTER" });

  constructor(ctx: DurableObjectState, env: ConsumerEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL)",
    );
  }

  /** `GET /live/socket`: 101 with a session (the count comes first), 401 without, 426 if not an upgrade. */
  override async fetch(request: Request): Promise<Response> {
    try {
      const accepted = await this.#sockets.accept(request);
      if (accepted.ok) accepted.socket.send(message(this.#count()));
      return accepted.response;
    } catch (err) {
      // A missing binding (not_bound) or an unnamed object: the configuration's fault, said without detail.
      if (err instanceof AppConnectionsError) return new Response("Live counter unavailable", { status: 503 });
      throw err;
    }
  }

  /** The registry's call when sessions this object holds sockets of have ended. */
  gatehouseSessionsEnded(notice: SessionsEndedNotice): Promise<{ closed: number }> {
    return this.#sockets.close(notice);
  }

  override webSocketMessage(_ws: WebSocket, data: string | ArrayBuffer): void {
    if (data !== INCREMENT) return;
    const [row] = this.ctx.storage.sql
      .exec<{ value: number }>(
        "INSERT INTO counter (id, value) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET value = value + 1 RETURNING value",
      )
      .toArray();
    const text = message(row?.value ?? this.#count());
    for (const peer of this.ctx.getWebSockets()) {
      try {
        peer.send(text);
      } catch {
        // Closing meanwhile: it gets no more counts.
      }
    }
  }

  #count(): number {
    const [row] = this.ctx.storage.sql.exec<{ value: number }>("SELECT value FROM counter WHERE id = 1").toArray();
    return row?.value ?? 0;
  }
}

function message(count: number): string {
  return JSON.stringify({ type: "count", count });
}
