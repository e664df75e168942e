/**
 * @module
 * Cloudflare's published Workers Paid list prices that the cost bench multiplies its counts by,
 * each with its unit, the allowance the $5 plan includes, where it is documented and when we read
 * it. Figures were read on 2026-11-27 from the stored copies of the pages named in `source`, and
 * checked against the Markdown those pages are built from (`sourceFile`, in cloudflare/cloudflare-docs).
 * A price that is not documented is not here. Data only: it must never compute anything.
 */

/** The billable kinds a price applies to (bench/cost/ledger.ts `KINDS`), or null for one the bench does not count. */
export type PricedKind =
  | "worker_requests"
  | "do_requests"
  | "do_rows_read"
  | "do_rows_written"
  | "kv_reads"
  | "kv_writes"
  | "kv_deletes"
  | "kv_lists"
  | "queue_ops";

export interface Price {
  id: string;
  item: string;
  /** US dollars per `per` units past the allowance. */
  usd: number;
  per: number;
  unit: string;
  /** Included in the Workers Paid plan each month (null: none, or not applicable). */
  includedPerMonth: number | null;
  kind: PricedKind | null;
  /** Why the bench does not count it, when `kind` is null. */
  notCounted?: string;
  source: string;
  sourceFile: string;
  /** The footnote or sentence the bench relies on, as the page says it. */
  documented?: string;
  read: string;
}

const READ = "2026-11-27";
const WORKERS = "https://developers.cloudflare.com/workers/platform/pricing/";
const WORKERS_FILE = "src/content/docs/workers/platform/pricing.mdx";
const DO = "https://developers.cloudflare.com/durable-objects/platform/pricing/";
const DO_FILE = "src/content/partials/durable-objects/durable-objects-pricing.mdx";
const KV = "https://developers.cloudflare.com/kv/platform/pricing/";
const KV_FILE = "src/content/partials/workers/kv_pricing.mdx";
const QUEUES = "https://developers.cloudflare.com/queues/platform/pricing/";
const QUEUES_FILE = "src/content/partials/workers/queues_pricing.mdx";

/** The plan's monthly minimum: it includes every allowance below. */
export const WORKERS_PAID_BASE: Price = {
  id: "workers.paid_plan",
  item: "Workers Paid plan (minimum charge per account)",
  usd: 5,
  per: 1,
  unit: "month",
  includedPerMonth: null,
  kind: null,
  notCounted: "a fixed monthly charge",
  source: WORKERS,
  sourceFile: WORKERS_FILE,
  documented:
    "The Workers Paid plan includes Workers, Pages Functions, Workers KV, Hyperdrive, and Durable Objects usage for a minimum charge of $5 USD per month for an account.",
  read: READ,
};

export const PRICES: readonly Price[] = [
  {
    id: "workers.requests",
    item: "Workers requests (Standard)",
    usd: 0.3,
    per: 1_000_000,
    unit: "requests",
    includedPerMonth: 10_000_000,
    kind: "worker_requests",
    source: WORKERS,
    sourceFile: WORKERS_FILE,
    documented:
      "Inbound requests to your Worker. Cloudflare does not bill for subrequests you make from your Worker. Requests made from your Worker to another worker via a Service Binding do not incur additional request fees.",
    read: READ,
  },
  {
    id: "workers.cpu_ms",
    item: "Workers CPU time (Standard)",
    usd: 0.02,
    per: 1_000_000,
    unit: "CPU milliseconds",
    includedPerMonth: 30_000_000,
    kind: null,
    notCounted:
      "CPU time is not an operation: local workerd cannot measure production CPU time (its clock only moves across I/O), so the bench leaves it out rather than estimate it",
    source: WORKERS,
    sourceFile: WORKERS_FILE,
    read: READ,
  },
  {
    id: "durable_objects.requests",
    item: "Durable Objects requests",
    usd: 0.15,
    per: 1_000_000,
    unit: "requests",
    includedPerMonth: 1_000_000,
    kind: "do_requests",
    source: DO,
    sourceFile: DO_FILE,
    documented:
      "Includes HTTP requests, RPC sessions, WebSocket messages, and alarm invocations. Every RPC method call on a Durable Objects stub is its own RPC session and therefore a single billed request. There is no charge for outgoing WebSocket messages. A 20:1 ratio is applied to incoming WebSocket messages.",
    read: READ,
  },
  {
    id: "durable_objects.duration",
    item: "Durable Objects duration",
    usd: 12.5,
    per: 1_000_000,
    unit: "GB-s",
    includedPerMonth: 400_000,
    kind: null,
    notCounted:
      "wall-clock time while an object is active (128 MB each), not an operation: local wall time is not production's. Objects that are idle and eligible for hibernation (a hibernated socket included) are not billed for duration",
    source: DO,
    sourceFile: DO_FILE,
    read: READ,
  },
  {
    id: "durable_objects.rows_read",
    item: "Durable Objects SQLite rows read",
    usd: 0.001,
    per: 1_000_000,
    unit: "rows",
    includedPerMonth: 25_000_000_000,
    kind: "do_rows_read",
    source: DO,
    sourceFile: DO_FILE,
    documented:
      "Key-value methods like get(), put(), delete(), or list() store and query data in a hidden SQLite table and are billed as rows read and rows written.",
    read: READ,
  },
  {
    id: "durable_objects.rows_written",
    item: "Durable Objects SQLite rows written",
    usd: 1,
    per: 1_000_000,
    unit: "rows",
    includedPerMonth: 50_000_000,
    kind: "do_rows_written",
    source: DO,
    sourceFile: DO_FILE,
    documented: "Each setAlarm() is billed as a single row written. Deletes are counted as rows written.",
    read: READ,
  },
  {
    id: "durable_objects.sql_storage",
    item: "Durable Objects SQL stored data",
    usd: 0.2,
    per: 1,
    unit: "GB-month",
    includedPerMonth: 5,
    kind: null,
    notCounted: "storage held, not an operation",
    source: DO,
    sourceFile: DO_FILE,
    read: READ,
  },
  {
    id: "kv.reads",
    item: "Workers KV read requests",
    usd: 0.5,
    per: 1_000_000,
    unit: "reads",
    includedPerMonth: 10_000_000,
    kind: "kv_reads",
    source: KV,
    sourceFile: KV_FILE,
    documented:
      "All operations incur charges, including fetches for non-existent keys that return a null. (How a bulk read of several keys is billed is not stated on the page: the bench prices each key as one read, the larger reading.)",
    read: READ,
  },
  {
    id: "kv.writes",
    item: "Workers KV write requests",
    usd: 5,
    per: 1_000_000,
    unit: "writes",
    includedPerMonth: 1_000_000,
    kind: "kv_writes",
    source: KV,
    sourceFile: KV_FILE,
    read: READ,
  },
  {
    id: "kv.deletes",
    item: "Workers KV delete requests",
    usd: 5,
    per: 1_000_000,
    unit: "deletes",
    includedPerMonth: 1_000_000,
    kind: "kv_deletes",
    source: KV,
    sourceFile: KV_FILE,
    read: READ,
  },
  {
    id: "kv.lists",
    item: "Workers KV list requests",
    usd: 5,
    per: 1_000_000,
    unit: "lists",
    includedPerMonth: 1_000_000,
    kind: "kv_lists",
    source: KV,
    sourceFile: KV_FILE,
    read: READ,
  },
  {
    id: "kv.storage",
    item: "Workers KV stored data",
    usd: 0.5,
    per: 1,
    unit: "GB-month",
    includedPerMonth: 1,
    kind: null,
    notCounted: "storage held, not an operation",
    source: KV,
    sourceFile: KV_FILE,
    read: READ,
  },
  {
    id: "queues.operations",
    item: "Queues standard operations",
    usd: 0.4,
    per: 1_000_000,
    unit: "operations",
    includedPerMonth: 1_000_000,
    kind: "queue_ops",
    source: QUEUES,
    sourceFile: QUEUES_FILE,
    documented:
      "An operation is counted for each 64 KB of data that is written, read, or deleted. In most cases, it takes 3 operations to deliver a message: 1 write, 1 read, and 1 delete.",
    read: READ,
  },
];
