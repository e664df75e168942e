/**
 * Node-side globalSetup of the "bindings" and "bench-bindings" projects. Starts
 * (1) a real Postgres wire server (PGlite behind @electric-sql/pglite-socket) that
 * the test worker's Hyperdrive binding points at, and (2) a tiny HTTP service that
 * opens SQLite files with Node's own SQLite (`node:sqlite`), so `SqlDatabase.dump()`
 * is checked by a real SQLite engine. Both listen on 127.0.0.1 and a free port only.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  interface ProvidedContext {
    /** `postgres://…` of the PGlite socket server (Hyperdrive's local origin). */
    bindingsPostgresUrl: string;
    /** A `postgres://…` URL whose port nothing listens on (connection failures). */
    bindingsClosedPostgresUrl: string;
    /** Base URL of the SQLite reader service. */
    bindingsSqliteReaderUrl: string;
  }
}

/** The password in the Postgres URL: tests check it never appears in an error. */
export const POSTGRES_PASSWORD = "pg-secret-do-not-leak";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const pg = await PGlite.create();
  // More than one connection: the server counts a closed connection until Node's "close" event and a
  // setImmediate later, so a client that connects again at once (the built-in driver of
  // PooledDbClient, one connection per query) could find the old one still counted and be refused.
  // PGlite still runs one query at a time (the server's own queue).
  const pgServer = new PGLiteSocketServer({ db: pg, host: "127.0.0.1", port: 0, maxConnections: 4 });
  await pgServer.start();
  const pgAddress = pgServer.getServerConn();
  project.provide("bindingsPostgresUrl", `postgres://postgres:${POSTGRES_PASSWORD}@${pgAddress}/postgres`);
  const closed = createServer();
  const closedPort = await listen(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  project.provide(
    "bindingsClosedPostgresUrl",
    `postgres://postgres:${POSTGRES_PASSWORD}@127.0.0.1:${closedPort}/postgres`,
  );

  const dir = mkdtempSync(join(tmpdir(), "gatehouse-sqlite-"));
  const reader = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const url = new URL(req.url ?? "/", "http://reader");
      const body = Buffer.concat(chunks);
      const file = join(dir, `${crypto.randomUUID()}.sqlite`);
      writeFileSync(file, body);
      try {
        const result = url.pathname === "/query" ? query(file, url) : describe(file);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(result));
      } finally {
        rmSync(file, { force: true });
      }
    } catch (err) {
      res.writeHead(422, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: err instanceof Error ? err.message : String(err) }));
    }
  });
  const readerPort = await listen(reader);
  project.provide("bindingsSqliteReaderUrl", `http://127.0.0.1:${readerPort}`);

  return async () => {
    await new Promise<void>((resolve) => reader.close(() => resolve()));
    await pgServer.stop();
    await pg.close();
    rmSync(dir, { recursive: true, force: true });
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

type Json = null | number | string | { int: string } | { blob: string } | { real: string };

/** JSON-safe form of a SQLite value: big integers as `{ int }`, blobs as `{ blob: hex }`, infinities as `{ real }`. */
function toJson(value: unknown): Json {
  if (typeof value === "number" && !Number.isFinite(value)) return { real: String(value) };
  if (value === null || typeof value === "number" || typeof value === "string") return value;
  if (typeof value === "bigint") {
    return Number.isSafeInteger(Number(value)) ? Number(value) : { int: value.toString() };
  }
  if (value instanceof Uint8Array) return { blob: Buffer.from(value).toString("hex") };
  throw new Error(`unexpected SQLite value ${String(value)}`);
}

function open(file: string): DatabaseSync {
  return new DatabaseSync(file, { readOnly: true, readBigInts: true });
}

/** Integrity check, the schema, every table's rows (in rowid/key order) and their SQLite types. */
function describe(file: string) {
  const db = open(file);
  try {
    const integrity = db.prepare("PRAGMA integrity_check").all();
    const header = {
      pageSize: toJson(db.prepare("PRAGMA page_size").get()?.page_size),
      pageCount: toJson(db.prepare("PRAGMA page_count").get()?.page_count),
      encoding: db.prepare("PRAGMA encoding").get()?.encoding,
    };
    const schema = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid").all();
    const tables: Record<string, { columns: string[]; rows: Json[][]; types: string[][] }> = {};
    for (const entry of schema) {
      if (entry.type !== "table" || String(entry.sql).startsWith("CREATE VIRTUAL")) continue;
      const name = String(entry.name);
      const quoted = `"${name.replaceAll('"', '""')}"`;
      const stmt = db.prepare(`SELECT * FROM ${quoted}`);
      stmt.setReturnArrays(true);
      const columns = stmt.columns().map((c) => c.name);
      const rows = (stmt.all() as unknown as unknown[][]).map((row) => row.map(toJson));
      const typeList = columns.map((c) => `typeof("${c.replaceAll('"', '""')}")`).join(", ");
      const typeStmt = db.prepare(`SELECT ${typeList || "1"} FROM ${quoted}`);
      typeStmt.setReturnArrays(true);
      const types = typeStmt.all() as unknown as string[][];
      tables[name] = { columns, rows, types };
    }
    return { integrity: integrity.map((r) => r.integrity_check), header, schema, tables };
  } finally {
    db.close();
  }
}

/** Runs one read-only statement (`?sql=`, optional JSON `?params=`) against the file. */
function query(file: string, url: URL) {
  const db = open(file);
  try {
    const stmt = db.prepare(url.searchParams.get("sql") ?? "");
    stmt.setReturnArrays(true);
    const params = JSON.parse(url.searchParams.get("params") ?? "[]") as SQLInputValue[];
    return { rows: (stmt.all(...params) as unknown as unknown[][]).map((row) => row.map(toJson)) };
  } finally {
    db.close();
  }
}
