/**
 * @module
 * Writes a complete SQLite database file (format 4, UTF-8, 4096-byte pages, no
 * freelist, no WAL) from schema rows and the contents of their b-trees. It
 * trusts the caller's order (rowids ascending, index entries in index order)
 * and checks only what it can cheaply: rowids must strictly ascend.
 */
import { buildIndexTree, buildTableTree, FILE_HEADER_SIZE, Pager, type TableRow } from "./btree";
import { encodeRecord, type SqlValue } from "./record";

export type { SqlValue };

/** The contents of a rowid table: rows in ascending rowid order. */
export interface TableContent {
  kind: "table";
  rows: readonly { rowid: bigint; values: readonly SqlValue[] }[];
}

/** The contents of an index or WITHOUT ROWID table: records in key order. */
export interface IndexContent {
  kind: "index";
  entries: readonly (readonly SqlValue[])[];
}

/** One row of `sqlite_schema`, with the b-tree it roots (views and triggers have none). */
export interface SchemaObject {
  type: "table" | "index" | "view" | "trigger";
  name: string;
  tableName: string;
  sql: string | null;
  content?: TableContent | IndexContent;
}

export const PAGE_SIZE = 4096;
/** SQLITE_VERSION_NUMBER written in the header (the writer's format level). */
const WRITER_VERSION = 3_045_000;

/** The bytes of a SQLite database holding `objects`, in `sqlite_schema` order. */
export function writeSqliteFile(objects: readonly SchemaObject[]): Uint8Array {
  const pager = new Pager(PAGE_SIZE);
  const schemaRows: TableRow[] = objects.map((object, i) => {
    const root = object.content ? writeContent(pager, object) : 0;
    const record = encodeRecord([object.type, object.name, object.tableName, BigInt(root), object.sql]);
    return { rowid: BigInt(i + 1), record };
  });
  buildTableTree(pager, schemaRows, true);
  writeHeader(pager);
  return pager.toBytes();
}

function writeContent(pager: Pager, object: SchemaObject): number {
  const content = object.content!;
  if (content.kind === "index") return buildIndexTree(pager, content.entries.map(encodeRecord));
  let previous: bigint | undefined;
  const rows = content.rows.map((row) => {
    if (previous !== undefined && row.rowid <= previous) {
      throw new RangeError(
        `rows of "${object.name}" are not in ascending rowid order (${row.rowid} after ${previous})`,
      );
    }
    previous = row.rowid;
    return { rowid: row.rowid, record: encodeRecord(row.values) };
  });
  return buildTableTree(pager, rows);
}

/** The 100-byte database header (https://sqlite.org/fileformat2.html §1.3). */
function writeHeader(pager: Pager): void {
  const page = pager.page(1);
  const view = new DataView(page.buffer, page.byteOffset, FILE_HEADER_SIZE);
  page.set(new TextEncoder().encode("SQLite format 3\0"), 0);
  view.setUint16(16, pager.pageSize === 65536 ? 1 : pager.pageSize);
  page[18] = 1; // file format write version: legacy (rollback journal)
  page[19] = 1; // file format read version
  page[20] = 0; // reserved bytes per page
  page[21] = 64; // maximum embedded payload fraction
  page[22] = 32; // minimum embedded payload fraction
  page[23] = 32; // leaf payload fraction
  view.setUint32(24, 1); // file change counter
  view.setUint32(28, pager.pageCount); // database size in pages
  view.setUint32(32, 0); // first freelist trunk page
  view.setUint32(36, 0); // freelist page count
  view.setUint32(40, 1); // schema cookie
  view.setUint32(44, 4); // schema format number
  view.setUint32(48, 0); // default page cache size
  view.setUint32(52, 0); // no auto-vacuum
  view.setUint32(56, 1); // text encoding: UTF-8
  view.setUint32(60, 0); // user version
  view.setUint32(64, 0); // not incremental vacuum
  view.setUint32(68, 0); // application id
  view.setUint32(92, 1); // version-valid-for = change counter, so the size above is trusted
  view.setUint32(96, WRITER_VERSION);
}
