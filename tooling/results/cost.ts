/**
 * @module
 * The cost section of the bench's HTML report (report.ts): the billable operations the cost bench
 * counted for each operation (`cost.ops.<operation>.<kind>`, one row per operation, one column per
 * kind), its price per million at Cloudflare's list rates (`cost.usd_per_million.<operation>`), and
 * the headline figures (per million guarded requests, per 1,000 monthly active users). It draws
 * what the results hold and computes nothing: the counting and the prices are bench/cost's. Node only.
 */
import { KINDS } from "../../bench/cost/ledger.ts";
import type { Metric } from "./metric.ts";

const KIND_LABELS: Record<string, string> = {
  worker_requests: "Worker requests",
  subrequests: "subrequests (not billed)",
  do_requests: "DO requests",
  do_rows_read: "DO rows read",
  do_rows_written: "DO rows written",
  kv_reads: "KV reads",
  kv_writes: "KV writes",
  kv_deletes: "KV deletes",
  kv_lists: "KV lists",
  queue_ops: "Queue ops",
};

/** Row order: the bench's operations as README's table lists them; any other comes after them. */
const OPERATION_ORDER = [
  "sign_in_first",
  "sign_in",
  "sign_in_eventual",
  "sign_in_orgs2",
  "sign_in_security_events_queue",
  "guarded_strict_orgs0",
  "guarded_strict_orgs3",
  "guarded_strict_orgs3_cold_isolate",
  "guarded_strict_cold_object",
  "guarded_eventual_orgs0",
  "guarded_eventual_orgs3",
  "guarded_eventual_orgs3_cold_isolate",
  "guarded_bound_strict",
  "guarded_bound_eventual",
  "dbsc_refresh",
  "slide",
  "revoke_one",
  "revoke_one_eventual",
  "revoke_one_ssf_1_stream",
  "revoke_one_ssf_3_streams",
  "tab_open_hour",
  "tab_open_hour_eventual",
  "ratelimit_check_alone",
  "ratelimit_check_coalesced",
  "revoke_all_1000",
  "role_change_100",
  "kill_switch_1000",
];

const HEADLINES: [string, string][] = [
  ["cost.usd_per_million_guarded_requests.strict", "per million guarded requests, strict revocation"],
  ["cost.usd_per_million_guarded_requests.eventual", "per million guarded requests, eventual revocation"],
  ["cost.usd_per_1k_mau_month", "per 1,000 monthly active users per month, strict (the stated profile)"],
  ["cost.usd_per_1k_mau_month_eventual", "per 1,000 monthly active users per month, eventual"],
  ["cost.mau_within_workers_paid_allowance", "monthly active users the $5 plan's allowances cover, strict"],
  ["cost.mau_within_workers_paid_allowance_eventual", "monthly active users the $5 plan's allowances cover, eventual"],
];

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** Counts as people read them: integers with separators, fractions (a share of a batch) to 3 decimals. */
function count(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return value.toLocaleString("en-US");
  return Number(value.toFixed(3)).toLocaleString("en-US", { maximumFractionDigits: 3 });
}

/** Dollars with enough digits to show a small figure (never in scientific notation). */
function dollars(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const digits = Math.abs(value) >= 100 ? 2 : Math.abs(value) >= 1 ? 3 : 4;
  return `$${value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;
}

/** The operations and kinds present in `metrics`, in the bench's order (others as first recorded, after them). */
function table(metrics: Record<string, Metric>): { operations: string[]; kinds: string[] } {
  const operations: string[] = [];
  const kinds = new Set<string>();
  for (const name of Object.keys(metrics)) {
    const match = /^cost\.ops\.([^.]+)\.([^.]+)$/.exec(name);
    if (!match) continue;
    if (!operations.includes(match[1]!)) operations.push(match[1]!);
    kinds.add(match[2]!);
  }
  const rank = (order: string[]) => (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
  // Columns in the ledger's order of kinds; a kind it does not list comes after them.
  const kind = rank([...KINDS]);
  const operation = rank(OPERATION_ORDER);
  return {
    operations: operations.sort((a, b) => operation(a) - operation(b)),
    kinds: [...kinds].sort((a, b) => kind(a) - kind(b) || a.localeCompare(b)),
  };
}

/** The section, or a note that no cost was measured in this run. */
export function costSection(metrics: Record<string, Metric>): string {
  const head = `<h2 id="cost">What it costs</h2>`;
  const { operations, kinds } = table(metrics);
  if (operations.length === 0) {
    return `<section aria-labelledby="cost">${head}<p class="note">Not measured in this run (no metrics named cost.ops.&lt;operation&gt;.&lt;kind&gt;; bench/cost measures them).</p></section>`;
  }
  const headlines = HEADLINES.filter(([name]) => metrics[name])
    .map(([name, label]) => {
      const m = metrics[name]!;
      const value = m.unit === "USD" ? dollars(m.value) : `${count(m.value)} ${escapeHtml(m.unit)}`;
      return `<li><strong>${value}</strong> ${escapeHtml(label)} <code>${escapeHtml(name)}</code></li>`;
    })
    .join("");
  const header = `<tr><th scope="col">operation</th>${kinds
    .map((k) => `<th scope="col">${escapeHtml(KIND_LABELS[k] ?? k.replaceAll("_", " "))}</th>`)
    .join("")}<th scope="col">USD per million</th></tr>`;
  const rows = operations
    .map((op) => {
      const cells = kinds.map((k) => {
        const m = metrics[`cost.ops.${op}.${k}`];
        return `<td class="num">${m ? count(m.value) : "—"}</td>`;
      });
      const price = metrics[`cost.usd_per_million.${op}`];
      return `<tr><th scope="row"><code>${escapeHtml(op)}</code></th>${cells.join("")}<td class="num">${price ? dollars(price.value) : "—"}</td></tr>`;
    })
    .join("");
  return `<section aria-labelledby="cost">${head}
<p class="note">Billable operations counted on the real local bindings (bench/cost: counting KV, Durable Object stubs and storage, Queue, service binding and fetch), priced at Cloudflare's Workers Paid list rates past the plan's allowances (bench/cost/prices.ts: each price with its page and the date it was read). CPU time and Durable Object duration are not in these figures. None of them has a goal.</p>
${headlines ? `<ul class="cost-headlines">${headlines}</ul>` : ""}
<div style="overflow-x:auto"><table class="data cost" style="max-width:none"><caption>Per operation: counts of each billable kind (a share of a batch where the operation is one of several), and its price per million operations</caption><thead>${header}</thead><tbody>${rows}</tbody></table></div>
</section>`;
}
