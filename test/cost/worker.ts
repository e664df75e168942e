/**
 * The fixture of the counting layer's test: `Probe`, a SQLite Durable Object whose storage is
 * counted as the cost bench counts its objects (bench/cost/storage.ts), with an RPC method per
 * behaviour (a known insert, key-value storage calls, an alarm) and a hibernatable WebSocket whose
 * incoming messages it counts as bench/cost/worker.ts does.
 */
import { DurableObject } from "cloudflare:workers";
import { ledger } from "../../bench/cost/ledger";
import { countObjectStorage } from "../../bench/cost/storage";

export class Probe extends DurableObject {
  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    countObjectStorage(ctx);
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, label TEXT NOT NULL)");
  }

  /** Inserts `labels` in one statement; answers the cursor's own `rowsWritten`. */
  insert(labels: string[]): number {
    const values = labels.map(() => "(?)").join(", ");
    return this.ctx.storage.sql.exec(`INSERT INTO items (label) VALUES ${values}`, ...labels).rowsWritten;
  }

  /** Every item, read row by row. */
  items(): string[] {
    return this.ctx.storage.sql
      .exec<{ label: string }>("SELECT label FROM items ORDER BY id")
      .toArray()
      .map((r) => r.label);
  }

  /** Key-value storage: one put, a put of two entries, a get of two keys, a delete, a list. */
  async keyValue(): Promise<number> {
    await this.ctx.storage.put("a", 1);
    await this.ctx.storage.put({ b: 2, c: 3 });
    await this.ctx.storage.get(["a", "b"]);
    await this.ctx.storage.delete("a");
    return (await this.ctx.storage.list()).size;
  }

  async arm(): Promise<void> {
    await this.ctx.storage.setAlarm(Date.now() + 60_000);
  }

  override async alarm(): Promise<void> {
    ledger.add("doAlarms");
  }

  override async fetch(): Promise<Response> {
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  override webSocketMessage(ws: WebSocket): void {
    ledger.add("doWebSocketMessagesIn");
    ws.send("ok");
  }
}

export default {
  fetch: () => new Response("the cost layer's test worker"),
};
