// The cost section of the bench's HTML report (tooling/results/cost.ts): a row per operation the cost
// bench measured, a column per billable kind, its price per million, the headline figures, and a
// plain note when the run measured no cost. Names are escaped; the whole page still stands alone.
import { describe, expect, it } from "vitest";
import { costSection } from "../../tooling/results/cost.ts";
import type { Metric } from "../../tooling/results/metric.ts";
import { renderReport } from "../../tooling/results/report.ts";

const op = (value: number): Metric => ({ value, unit: "per operation", goal: "" });
const usd = (value: number): Metric => ({ value, unit: "USD", goal: "" });

const metrics: Record<string, Metric> = {
  "cost.ops.sign_in.worker_requests": op(2),
  "cost.ops.sign_in.do_requests": op(7),
  "cost.ops.sign_in.kv_writes": op(1),
  "cost.ops.ratelimit_check_coalesced.do_requests": op(0.2),
  "cost.ops.ratelimit_check_coalesced.worker_requests": op(0),
  "cost.ops.x<y>.kv_reads": op(1),
  "cost.usd_per_million.sign_in": usd(27.173),
  "cost.usd_per_million_guarded_requests.strict": usd(0.952),
  "cost.usd_per_1k_mau_month": usd(1.4766),
  "cost.mau_within_workers_paid_allowance": { value: 869, unit: "MAU", goal: "" },
  "auth.kv_writes_per_1k": { value: 0, unit: "writes", goal: "0" },
};

describe("costSection", () => {
  const html = costSection(metrics);

  it("has a row per operation and a column per kind, in the bench's order, with the price per million", () => {
    const headers = [...html.matchAll(/<th scope="col">([^<]+)<\/th>/g)].map((m) => m[1]);
    expect(headers).toEqual([
      "operation",
      "Worker requests",
      "DO requests",
      "KV reads",
      "KV writes",
      "USD per million",
    ]);
    const signIn = /<tr><th scope="row"><code>sign_in<\/code><\/th>(.*?)<\/tr>/.exec(html)?.[1];
    expect([...(signIn ?? "").matchAll(/<td class="num">([^<]+)<\/td>/g)].map((m) => m[1])).toEqual([
      "2",
      "7",
      "—",
      "1",
      "$27.173",
    ]);
    expect(html).toContain(">0.2<");
  });

  it("shows the headline figures and escapes names", () => {
    expect(html).toContain("<strong>$0.952</strong> per million guarded requests, strict revocation");
    expect(html).toContain("<strong>$1.477</strong> per 1,000 monthly active users");
    expect(html).toContain("<strong>869 MAU</strong>");
    expect(html).toContain("x&lt;y&gt;");
    expect(html).not.toContain("x<y>");
  });

  it("says so when the run measured no cost, and the report carries the section either way", () => {
    expect(costSection({ "auth.kv_writes_per_1k": metrics["auth.kv_writes_per_1k"]! })).toContain(
      "Not measured in this run",
    );
    const page = renderReport(metrics, { generatedAt: new Date("2026-11-27T00:00:00Z"), commit: "abc" });
    expect(page).toContain('<h2 id="cost">What it costs</h2>');
    expect(page).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
  });
});
