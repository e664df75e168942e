/**
 * @module
 * The cost bench's ledger: every billable operation the counting bindings (bindings.ts) and the
 * counting object state (storage.ts) saw, as raw counters, and the billable kinds they make as
 * Cloudflare bills them. One ledger per isolate: in the Workers pool the tests, the entrypoints
 * and the Durable Objects of the main module share it. It never estimates: a kind is a sum of
 * counted calls, or a documented ratio of one (WebSocket messages 20:1, a Queue message's three
 * operations). It must never count the bench's own probes (`paused`).
 */

/** What the counting layer saw, one counter per call site. */
export interface RawCounts {
  /** Inbound requests to a Worker: the auth worker's fetch handler, the guarded app's. */
  workerRequests: number;
  /** Outbound `fetch` from the Worker or its objects (the identity provider's API). Not billed. */
  fetchSubrequests: number;
  /** Calls over a service binding (the app → `AuthService`). Not billed as requests. */
  serviceCalls: number;
  /** RPC method calls on Durable Object stubs: each is one RPC session, one billed request. */
  doRpcCalls: number;
  /** `fetch` on Durable Object stubs (the live channel's WebSocket upgrade). */
  doFetches: number;
  /** Alarm invocations of the objects. */
  doAlarms: number;
  /** Objects built (a first use, or a wake after eviction): not billed itself; its constructor's SQL is in the rows. */
  objectStarts: number;
  /** Incoming WebSocket messages the objects handled (billed 20:1). */
  doWebSocketMessagesIn: number;
  /** `rowsRead` / `rowsWritten` of every SQL cursor the objects opened. */
  sqlRowsRead: number;
  sqlRowsWritten: number;
  /** Keys the objects' key-value storage calls read or wrote (a hidden SQLite table: billed as rows). */
  storageRowsRead: number;
  storageRowsWritten: number;
  /** `setAlarm` calls: each is billed as one row written. */
  setAlarms: number;
  /** `deleteAlarm` and `deleteAll` calls: counted, not priced (their billing is not documented). */
  deleteAlarms: number;
  deleteAlls: number;
  /** Workers KV: keys read (a bulk read of N keys counts N), bulk read calls, writes, deletes, lists. */
  kvReads: number;
  kvBulkReads: number;
  kvWrites: number;
  kvDeletes: number;
  kvLists: number;
  /** Messages sent to a Queue (each under 64 KB). */
  queueMessages: number;
}

export type RawCounter = keyof RawCounts;

/** The billable kinds of one operation, in the order of the tables. */
export const KINDS = [
  "worker_requests",
  "subrequests",
  "do_requests",
  "do_rows_read",
  "do_rows_written",
  "kv_reads",
  "kv_writes",
  "kv_deletes",
  "kv_lists",
  "queue_ops",
] as const;

export type Kind = (typeof KINDS)[number];
export type KindCounts = Record<Kind, number>;

/** Incoming WebSocket messages per billed Durable Object request (Durable Objects pricing, footnote 2). */
export const WEBSOCKET_MESSAGES_PER_REQUEST = 20;
/** Queue operations to deliver one message under 64 KB: a write, a read, a delete (Queues pricing). */
export const QUEUE_OPS_PER_MESSAGE = 3;

function zero(): RawCounts {
  return {
    workerRequests: 0,
    fetchSubrequests: 0,
    serviceCalls: 0,
    doRpcCalls: 0,
    doFetches: 0,
    doAlarms: 0,
    objectStarts: 0,
    doWebSocketMessagesIn: 0,
    sqlRowsRead: 0,
    sqlRowsWritten: 0,
    storageRowsRead: 0,
    storageRowsWritten: 0,
    setAlarms: 0,
    deleteAlarms: 0,
    deleteAlls: 0,
    kvReads: 0,
    kvBulkReads: 0,
    kvWrites: 0,
    kvDeletes: 0,
    kvLists: 0,
    queueMessages: 0,
  };
}

/** A SQL cursor's rows as last read, so a cursor iterated after a flush still adds what it read since. */
interface TrackedCursor {
  cursor: { readonly rowsRead: number; readonly rowsWritten: number };
  read: number;
  written: number;
  generation: number;
}

/** Cursors kept before a flush folds them in (a cursor is read lazily, as it is iterated). */
const FLUSH_AT = 20_000;

export class Ledger {
  #counts = zero();
  #cursors: TrackedCursor[] = [];
  #generation = 0;
  #paused = 0;
  /** Grows with every counted event: `settle` waits until it stops moving. */
  version = 0;

  get paused(): boolean {
    return this.#paused > 0;
  }

  add(counter: RawCounter, n = 1): void {
    if (this.#paused > 0 || n === 0) return;
    this.#counts[counter] += n;
    this.version++;
  }

  /** A SQL cursor of an object: its rows are read when the ledger is read (they grow as it is iterated). */
  track(cursor: TrackedCursor["cursor"]): void {
    if (this.#paused > 0) return;
    this.#cursors.push({ cursor, read: 0, written: 0, generation: this.#generation });
    this.version++;
    if (this.#cursors.length >= FLUSH_AT) this.#flush();
  }

  /** Runs `fn` (synchronous: nothing else runs meanwhile) without counting: the bench's own probes. */
  uncounted<T>(fn: () => T): T {
    this.#paused++;
    try {
      return fn();
    } finally {
      this.#paused--;
    }
  }

  /** Every counter so far. */
  snapshot(): RawCounts {
    this.#flush();
    return { ...this.#counts };
  }

  /**
   * Folds the cursors' rows in. A cursor is dropped one flush after it was first folded, so one
   * still being iterated across a flush keeps adding what it reads.
   */
  #flush(): void {
    const generation = this.#generation++;
    const kept: TrackedCursor[] = [];
    for (const tracked of this.#cursors) {
      const read = tracked.cursor.rowsRead;
      const written = tracked.cursor.rowsWritten;
      this.#counts.sqlRowsRead += read - tracked.read;
      this.#counts.sqlRowsWritten += written - tracked.written;
      tracked.read = read;
      tracked.written = written;
      if (tracked.generation === generation) kept.push(tracked);
    }
    this.#cursors = kept;
  }
}

/** The isolate's one ledger. */
export const ledger = new Ledger();

/** What happened between two snapshots. */
export function between(before: RawCounts, after: RawCounts): RawCounts {
  const out = zero();
  for (const key of Object.keys(out) as RawCounter[]) out[key] = after[key] - before[key];
  return out;
}

/** `counts` divided by `n` (per operation of a batch of n). */
export function per(counts: RawCounts, n: number): RawCounts {
  const out = zero();
  for (const key of Object.keys(out) as RawCounter[]) out[key] = counts[key] / n;
  return out;
}

/** The billable kinds, as the platform bills them (see each pricing page's footnotes in prices.json). */
export function billable(raw: RawCounts): KindCounts {
  return {
    worker_requests: raw.workerRequests,
    subrequests: raw.fetchSubrequests + raw.serviceCalls,
    do_requests:
      raw.doRpcCalls + raw.doFetches + raw.doAlarms + raw.doWebSocketMessagesIn / WEBSOCKET_MESSAGES_PER_REQUEST,
    do_rows_read: raw.sqlRowsRead + raw.storageRowsRead,
    do_rows_written: raw.sqlRowsWritten + raw.storageRowsWritten + raw.setAlarms,
    kv_reads: raw.kvReads,
    kv_writes: raw.kvWrites,
    kv_deletes: raw.kvDeletes,
    kv_lists: raw.kvLists,
    queue_ops: raw.queueMessages * QUEUE_OPS_PER_MESSAGE,
  };
}
