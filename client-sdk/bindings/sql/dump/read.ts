/**
 * @module
 * Reads a D1 database into `SchemaObject`s for the SQLite writer, with plain
 * SQL and the PRAGMAs D1 allows (no D1 dump API). SQLite itself orders every
 * index and WITHOUT ROWID tree (ORDER BY with the index's collations), and
 * values travel type-tagged so 64-bit integers, reals and blobs stay exact.
 * All rows are read in one `batch` (one transaction), so the file is one snapshot.
 */
import { BindingError } from "../../errors";
import { parseCreateIndex } from "./index-sql";
import type { SchemaObject, SqlValue } from "./sqlite-file";

interface MasterRow {
  type: string;
  name: string;
  tbl_name: string;
  rootpage: number;
  sql: string | null;
}

interface ColumnInfo {
  cid: number;
  name: string;
  type: string;
  pk: number;
  hidden: number;
}

interface IndexListRow {
  name: string;
  origin: string;
  partial: number;
}

interface IndexColumn {
  seqno: number;
  cid: number;
  name: string | null;
  desc: number;
  coll: string | null;
}

/**
 * Left out: D1's own tables (`_cf_KV`, `_cf_METADATA`, …), which it does not let
 * queries read, and ANALYZE statistics (`sqlite_stat1`…`4`), optional for SQLite
 * and not always readable through D1.
 */
const isInternal = (name: string) => name.startsWith("_cf_") || /^sqlite_stat\d$/.test(name);

export const quoteId = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * One value, type-tagged as text so nothing is lost in transit: `i…` integer
 * (exact 64-bit), `t…` text, `b…` blob as hex, `r+`/`r-` infinities. Finite
 * reals travel as numbers (exact as doubles) and NULL as null.
 */
function encoded(expr: string): string {
  return (
    `CASE typeof(${expr}) WHEN 'integer' THEN 'i' || ${expr} WHEN 'text' THEN 't' || ${expr} ` +
    `WHEN 'blob' THEN 'b' || hex(${expr}) WHEN 'real' THEN CASE WHEN ${expr} = 9e999 THEN 'r+' ` +
    `WHEN ${expr} = -9e999 THEN 'r-' ELSE ${expr} END ELSE NULL END`
  );
}

function decode(value: unknown): SqlValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return value;
  if (typeof value !== "string" || value.length === 0) throw new TypeError(`unexpected encoded value ${String(value)}`);
  const rest = value.slice(1);
  switch (value[0]) {
    case "i":
      return BigInt(rest);
    case "t":
      return rest;
    case "b": {
      const bytes = new Uint8Array(rest.length / 2);
      for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(rest.slice(2 * i, 2 * i + 2), 16);
      return bytes;
    }
    case "r":
      return rest === "+" ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    default:
      throw new TypeError(`unexpected encoded value ${value.slice(0, 20)}`);
  }
}

/** A SELECT that yields the entries of an index-shaped b-tree in its on-disk order. */
function indexQuery(table: string, columns: IndexColumn[], rowid: () => string, definition: string | null): string {
  const parsed = definition ? parseCreateIndex(definition) : null;
  const where = parsed?.where ?? null;
  const inner = columns.map((c, i) => {
    if (c.cid === -1) return `${rowid()} AS k${i}`;
    if (c.cid === -2) {
      const term = parsed?.terms[c.seqno];
      if (term === undefined) throw new TypeError(`cannot find expression ${c.seqno} of index on ${table}`);
      return `(${term}) AS k${i}`;
    }
    return `${quoteId(c.name ?? "")} AS k${i}`;
  });
  const order = columns.map((c, i) => `k${i} COLLATE ${quoteId(c.coll ?? "BINARY")}${c.desc ? " DESC" : ""}`);
  const outer = columns.map((_, i) => `${encoded(`k${i}`)} AS c${i}`);
  return (
    `SELECT ${outer.join(", ")} FROM (SELECT ${inner.join(", ")} FROM ${quoteId(table)}` +
    `${where ? ` WHERE ${where}` : ""}) ORDER BY ${order.join(", ")}`
  );
}

/** Reads a statement's rows as arrays in column order (`c0`, `c1`, …). */
function rowsOf(result: D1Result, width: number): unknown[][] {
  return (result.results as Record<string, unknown>[]).map((row) => {
    const out: unknown[] = [];
    for (let i = 0; i < width; i++) out.push(row[`c${i}`]);
    return out;
  });
}

async function batch(db: D1Database, statements: D1PreparedStatement[], what: string): Promise<D1Result[]> {
  if (statements.length === 0) return [];
  try {
    return await db.batch(statements);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new BindingError("dump_failed", {
      message: `SqlDatabase.dump(): could not read ${what}: ${reason}`,
      cause: err,
    });
  }
}

/** Plan for one b-tree: the statement that reads it and how to turn its rows into content. */
type Plan = { object: SchemaObject; sql: string; width: number; kind: "table" | "index" };

/** Every schema object of `db` with the contents of its b-tree, in `sqlite_master` order. */
export async function readDatabase(db: D1Database): Promise<SchemaObject[]> {
  const [master] = await batch(
    db,
    [db.prepare("SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master ORDER BY rowid")],
    "the schema",
  );
  const rows = (master!.results as unknown as MasterRow[]).filter(
    (r) => !isInternal(r.name) && !isInternal(r.tbl_name),
  );
  const tables = rows.filter((r) => r.type === "table" && r.rootpage > 0);
  const indexes = rows.filter((r) => r.type === "index" && r.rootpage > 0);

  const info = await batch(
    db,
    tables.flatMap((t) => [
      db.prepare(`PRAGMA table_xinfo(${quoteId(t.name)})`),
      db.prepare(`PRAGMA index_list(${quoteId(t.name)})`),
      db.prepare(`PRAGMA table_list(${quoteId(t.name)})`),
    ]),
    "table definitions",
  );
  const tableInfo = new Map(
    tables.map((t, i) => {
      const columns = info[3 * i]!.results as unknown as ColumnInfo[];
      const indexList = info[3 * i + 1]!.results as unknown as IndexListRow[];
      const list = info[3 * i + 2]!.results as unknown as { wr: number }[];
      const withoutRowid = list[0]?.wr === 1;
      return [t.name, { columns, indexList, withoutRowid }] as const;
    }),
  );

  // The index-shaped trees: every index with a root page, and the primary key of each WITHOUT ROWID table.
  const shaped = [
    ...indexes.map((r) => ({ indexName: r.name, table: r.tbl_name, sql: r.sql })),
    ...tables
      .filter((t) => tableInfo.get(t.name)!.withoutRowid)
      .map((t) => ({
        indexName: tableInfo.get(t.name)!.indexList.find((x) => x.origin === "pk")!.name,
        table: t.name,
        sql: null,
      })),
  ];
  const xinfo = await batch(
    db,
    shaped.map((s) => db.prepare(`PRAGMA index_xinfo(${quoteId(s.indexName)})`)),
    "index definitions",
  );
  const indexColumns = new Map(shaped.map((s, i) => [s.indexName, xinfo[i]!.results as unknown as IndexColumn[]]));

  const objects: SchemaObject[] = rows.map((r) => ({
    type: r.type as SchemaObject["type"],
    name: r.name,
    tableName: r.tbl_name,
    sql: r.sql,
  }));
  const plans: Plan[] = [];
  rows.forEach((r, i) => {
    const object = objects[i]!;
    if (r.rootpage <= 0 || (r.type !== "table" && r.type !== "index")) return;
    const table = tableInfo.get(r.tbl_name);
    if (!table) throw new BindingError("dump_failed", { message: `SqlDatabase.dump(): no table "${r.tbl_name}"` });
    try {
      plans.push(plan(object, r, table, indexColumns));
    } catch (err) {
      if (err instanceof BindingError) throw err;
      throw new BindingError("dump_failed", {
        message: `SqlDatabase.dump(): cannot read "${r.name}": ${err instanceof Error ? err.message : String(err)}`,
        cause: err,
      });
    }
  });

  const data = await batch(
    db,
    plans.map((p) => db.prepare(p.sql)),
    "the rows",
  );
  plans.forEach((plan, i) => {
    const values = rowsOf(data[i]!, plan.width);
    try {
      plan.object.content =
        plan.kind === "index"
          ? { kind: "index", entries: values.map((row) => row.map(decode)) }
          : {
              kind: "table",
              rows: values.map(([r, ...rest]) => ({ rowid: BigInt(r as string), values: rest.map(decode) })),
            };
    } catch (err) {
      throw new BindingError("dump_failed", {
        message: `SqlDatabase.dump(): unexpected data in "${plan.object.name}"`,
        cause: err,
      });
    }
  });
  return objects;
}

interface TableInfo {
  columns: ColumnInfo[];
  indexList: IndexListRow[];
  withoutRowid: boolean;
}

/** The statement that reads the b-tree of schema row `r`, in on-disk order. */
function plan(object: SchemaObject, r: MasterRow, table: TableInfo, indexColumns: Map<string, IndexColumn[]>): Plan {
  const rowid = () => rowidName(table.columns, r.tbl_name);
  if (r.type === "index" || table.withoutRowid) {
    const indexName = r.type === "index" ? r.name : table.indexList.find((x) => x.origin === "pk")!.name;
    const columns = indexColumns.get(indexName)!;
    const definition = r.type === "index" ? r.sql : null;
    return {
      object,
      sql: indexQuery(r.tbl_name, columns, rowid, definition),
      width: columns.length,
      kind: "index",
    };
  }
  // Virtual generated columns are not stored; an INTEGER PRIMARY KEY alias is stored as NULL.
  const stored = table.columns.filter((c) => c.hidden !== 2 && c.hidden !== 1);
  const pks = table.columns.filter((c) => c.pk > 0);
  const aliasIsRowid =
    pks.length === 1 && pks[0]!.type.toUpperCase() === "INTEGER" && !table.indexList.some((x) => x.origin === "pk");
  const selected = stored.map((c) => (aliasIsRowid && c.cid === pks[0]!.cid ? "NULL" : quoteId(c.name)));
  const outer = [`CAST(r AS TEXT) AS c0`, ...selected.map((_, j) => `${encoded(`k${j}`)} AS c${j + 1}`)];
  const inner = [`${rowid()} AS r`, ...selected.map((expr, j) => `${expr} AS k${j}`)];
  return {
    object,
    sql: `SELECT ${outer.join(", ")} FROM (SELECT ${inner.join(", ")} FROM ${quoteId(r.tbl_name)}) ORDER BY r`,
    width: selected.length + 1,
    kind: "table",
  };
}

/** The first of rowid/_rowid_/oid that no column shadows. */
function rowidName(columns: ColumnInfo[], table: string): string {
  const taken = new Set(columns.map((c) => c.name.toLowerCase()));
  const name = ["rowid", "_rowid_", "oid"].find((n) => !taken.has(n));
  if (!name) {
    throw new BindingError("dump_failed", {
      message: `SqlDatabase.dump(): table "${table}" has columns named rowid, _rowid_ and oid; its rowids cannot be read`,
    });
  }
  return name;
}
