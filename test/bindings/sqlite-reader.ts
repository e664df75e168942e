/**
 * Client of the SQLite reader service started by test/node/bindings-setup.ts:
 * posts a database file and gets back what Node's own SQLite (node:sqlite)
 * reads from it, so dump tests are judged by a real SQLite engine.
 */
import { env } from "cloudflare:workers";

/** A value as the reader reports it: numbers, strings, null, `{ int }` beyond 2^53, `{ blob: hex }`, `{ real: "Infinity" }`. */
export type ReaderValue = null | number | string | { int: string } | { blob: string } | { real: string };

export interface ReaderReport {
  integrity: string[];
  header: { pageSize: number; pageCount: number; encoding: string };
  schema: { type: string; name: string; tbl_name: string; sql: string | null }[];
  tables: Record<string, { columns: string[]; rows: ReaderValue[][]; types: string[][] }>;
}

export async function readSqlite(file: ArrayBuffer): Promise<ReaderReport> {
  const res = await fetch(env.SQLITE_READER_URL, { method: "POST", body: file });
  if (!res.ok) throw new Error(`SQLite could not open the file: ${await res.text()}`);
  return res.json();
}

/** Runs one read-only statement on the file with node:sqlite. */
export async function querySqlite(file: ArrayBuffer, sql: string, params: unknown[] = []): Promise<ReaderValue[][]> {
  const url = new URL("/query", env.SQLITE_READER_URL);
  url.searchParams.set("sql", sql);
  url.searchParams.set("params", JSON.stringify(params));
  const res = await fetch(url, { method: "POST", body: file });
  if (!res.ok) throw new Error(`SQLite query failed: ${await res.text()}`);
  return ((await res.json()) as { rows: ReaderValue[][] }).rows;
}
