/**
 * @module
 * Bulk-loads SQLite b-trees (https://sqlite.org/fileformat2.html §1.6): table
 * trees keyed by rowid and index trees of records, already sorted by the
 * caller, packed bottom-up into pages with overflow chains for large payloads.
 * It never sorts or compares values: the order it is given is the order on disk.
 */
import { varint } from "./record";

const LEAF_INDEX = 0x0a;
const LEAF_TABLE = 0x0d;
const INTERIOR_INDEX = 0x02;
const INTERIOR_TABLE = 0x05;
/** Size of the database header that precedes page 1's b-tree header. */
export const FILE_HEADER_SIZE = 100;

/** The pages of one database file; page 1 is reserved for the schema root. */
export class Pager {
  readonly pageSize: number;
  readonly #pages: Uint8Array[];

  constructor(pageSize: number) {
    this.pageSize = pageSize;
    this.#pages = [new Uint8Array(pageSize)];
  }

  allocate(): number {
    this.#pages.push(new Uint8Array(this.pageSize));
    return this.#pages.length;
  }

  page(pageNumber: number): Uint8Array {
    return this.#pages[pageNumber - 1]!;
  }

  get pageCount(): number {
    return this.#pages.length;
  }

  toBytes(): Uint8Array {
    const out = new Uint8Array(this.#pages.length * this.pageSize);
    this.#pages.forEach((page, i) => {
      out.set(page, i * this.pageSize);
    });
    return out;
  }
}

function u32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The local part of a payload plus, when it does not fit, the number of the
 * first overflow page (§1.6, "the amount of payload that spills").
 */
function spill(pager: Pager, payload: Uint8Array, maxLocal: number): Uint8Array {
  const usable = pager.pageSize;
  const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23;
  if (payload.length <= maxLocal) return payload;
  const k = minLocal + ((payload.length - minLocal) % (usable - 4));
  const local = k <= maxLocal ? k : minLocal;
  const perPage = usable - 4;
  const chunks = Math.ceil((payload.length - local) / perPage);
  const pages = Array.from({ length: chunks }, () => pager.allocate());
  pages.forEach((pageNumber, i) => {
    const page = pager.page(pageNumber);
    new DataView(page.buffer).setUint32(0, pages[i + 1] ?? 0);
    page.set(payload.subarray(local + i * perPage, local + (i + 1) * perPage), 4);
  });
  return concat(payload.subarray(0, local), u32(pages[0]!));
}

function writePage(page: Uint8Array, offset: number, type: number, cells: Uint8Array[], rightChild?: number): void {
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const headerSize = rightChild === undefined ? 8 : 12;
  let content = page.length;
  cells.forEach((cell, i) => {
    content -= cell.length;
    page.set(cell, content);
    view.setUint16(offset + headerSize + 2 * i, content);
  });
  page[offset] = type;
  view.setUint16(offset + 1, 0);
  view.setUint16(offset + 3, cells.length);
  view.setUint16(offset + 5, content === 65536 ? 0 : content);
  page[offset + 7] = 0;
  if (rightChild !== undefined) view.setUint32(offset + 8, rightChild);
}

/** Space used by a page holding `cells`, header and cell pointers included. */
function used(headerSize: number, cells: readonly { length: number }[]): number {
  return cells.reduce((n, c) => n + 2 + c.length, headerSize);
}

/** Where a tree's pages may go: the root can be pinned to page 1 (the schema). */
interface Placement {
  pager: Pager;
  /** Usable bytes per page for packing decisions (page 1 loses the file header). */
  capacity: number;
  rootOnPageOne: boolean;
}

function placement(pager: Pager, rootOnPageOne: boolean): Placement {
  return { pager, capacity: pager.pageSize - (rootOnPageOne ? FILE_HEADER_SIZE : 0), rootOnPageOne };
}

function writeRoot(p: Placement, type: number, cells: Uint8Array[], rightChild?: number): number {
  if (p.rootOnPageOne) {
    writePage(p.pager.page(1), FILE_HEADER_SIZE, type, cells, rightChild);
    return 1;
  }
  const pageNumber = p.pager.allocate();
  writePage(p.pager.page(pageNumber), 0, type, cells, rightChild);
  return pageNumber;
}

/** A divider between two children: its interior cell once the left child is known. */
interface Divider {
  length: number;
  cell(leftChild: number): Uint8Array;
}

/** Packs interior levels until one page (the root) remains. */
function buildInterior(p: Placement, type: number, children: number[], dividers: Divider[]): number {
  while (true) {
    const cellsLength = dividers.map((d) => ({ length: d.length + 4 }));
    if (used(12, cellsLength) <= p.capacity) {
      const cells = dividers.map((d, i) => d.cell(children[i]!));
      return writeRoot(p, type, cells, children.at(-1)!);
    }
    interface Pending {
      cells: { child: number; divider: Divider }[];
      right: number;
    }
    const pages: Pending[] = [];
    const promoted: Divider[] = [];
    let current: Pending = { cells: [], right: children[0]! };
    let size = 12;
    dividers.forEach((divider, i) => {
      const next = children[i + 1]!;
      if (size + 2 + divider.length + 4 <= p.capacity) {
        current.cells.push({ child: current.right, divider });
        size += 2 + divider.length + 4;
        current.right = next;
      } else {
        pages.push(current);
        promoted.push(divider);
        current = { cells: [], right: next };
        size = 12;
      }
    });
    if (current.cells.length === 0 && pages.length > 0) {
      // Never leave a page with no cells: borrow the previous page's last cell.
      const previous = pages.at(-1)!;
      const last = previous.cells.pop()!;
      current.cells.push({ child: previous.right, divider: promoted.pop()! });
      previous.right = last.child;
      promoted.push(last.divider);
    }
    pages.push(current);
    const numbers = pages.map((page) => {
      const pageNumber = p.pager.allocate();
      const cells = page.cells.map((c) => c.divider.cell(c.child));
      writePage(p.pager.page(pageNumber), 0, type, cells, page.right);
      return pageNumber;
    });
    children = numbers;
    dividers = promoted;
  }
}

/** One row of a rowid table: the rowid and the record bytes. */
export interface TableRow {
  rowid: bigint;
  record: Uint8Array;
}

/** Writes a table b-tree of `rows` (ascending, unique rowids) and returns its root page. */
export function buildTableTree(pager: Pager, rows: readonly TableRow[], rootOnPageOne = false): number {
  const p = placement(pager, rootOnPageOne);
  const maxLocal = pager.pageSize - 35;
  const cells = rows.map((row) =>
    concat(varint(row.record.length), varint(row.rowid), spill(pager, row.record, maxLocal)),
  );
  if (used(8, cells) <= p.capacity) return writeRoot(p, LEAF_TABLE, cells);
  const leaves: number[] = [];
  const dividers: Divider[] = [];
  let start = 0;
  while (start < cells.length) {
    let end = start;
    let size = 8;
    while (end < cells.length && size + 2 + cells[end]!.length <= p.capacity) size += 2 + cells[end++]!.length;
    const pageNumber = pager.allocate();
    writePage(pager.page(pageNumber), 0, LEAF_TABLE, cells.slice(start, end));
    leaves.push(pageNumber);
    if (end < cells.length) {
      const key = varint(rows[end - 1]!.rowid);
      dividers.push({ length: key.length, cell: (left) => concat(u32(left), key) });
    }
    start = end;
  }
  return buildInterior(p, INTERIOR_TABLE, leaves, dividers);
}

/** Writes an index b-tree of `records` (already in index order) and returns its root page. */
export function buildIndexTree(pager: Pager, records: readonly Uint8Array[]): number {
  const p = placement(pager, false);
  const maxLocal = Math.floor(((pager.pageSize - 12) * 64) / 255) - 23;
  const parts = records.map((record) => concat(varint(record.length), spill(pager, record, maxLocal)));
  if (used(8, parts) <= p.capacity) return writeRoot(p, LEAF_INDEX, parts);
  // Entries between two leaves move up as dividers: index interior cells hold real entries.
  const leaves: Uint8Array[][] = [];
  const separators: Uint8Array[] = [];
  let current: Uint8Array[] = [];
  let size = 8;
  for (const part of parts) {
    if (size + 2 + part.length <= p.capacity) {
      current.push(part);
      size += 2 + part.length;
    } else {
      leaves.push(current);
      separators.push(part);
      current = [];
      size = 8;
    }
  }
  if (current.length === 0) {
    // The last entry became a divider: it becomes the last leaf, the previous leaf's last entry the divider.
    const last = separators.pop()!;
    separators.push(leaves.at(-1)!.pop()!);
    current = [last];
  }
  leaves.push(current);
  const numbers = leaves.map((cells) => {
    const pageNumber = pager.allocate();
    writePage(pager.page(pageNumber), 0, LEAF_INDEX, cells);
    return pageNumber;
  });
  const dividers = separators.map((part) => ({ length: part.length, cell: (left: number) => concat(u32(left), part) }));
  return buildInterior(p, INTERIOR_INDEX, numbers, dividers);
}
