// The bench's HTML report (tooling/results/report.ts): how goal strings are read and judged, and
// that the page stands alone (no script, no external asset) with a row per metric, a missed goal's
// reason beside it, the curves of whatever growth metrics exist and the Better Auth matrix with
// each window labelled measured or documented bound; the console summary says the same.
import { describe, expect, it, vi } from "vitest";
import { printTable } from "../../tooling/results/index.ts";
import type { Metric } from "../../tooling/results/metric.ts";
import { fitLine, formatValue, groupOf, parseGoal, renderReport, verdict } from "../../tooling/results/report.ts";

const judge = (value: number, goal: string) => verdict(value, parseGoal(goal));

describe("parseGoal and verdict", () => {
  it.each([
    [1.5, ">= 1.5", "met"],
    [1.49, ">= 1.5", "missed"],
    [1.2, "<= 1.2", "met"],
    [1.21, "<= 1.2", "missed"],
    [99.9, "< 100", "met"],
    [100, "< 100", "missed"],
    [0.5, "> 0", "met"],
    [1, "= 1.000", "met"],
    [0.9996, "= 1.000", "met"],
    [0.998, "= 1.000", "missed"],
    [0, "0", "met"],
    [1, "0", "missed"],
    [0, "= 0", "met"],
    [1, "1", "met"],
    [1.04, "1.00 ± 0.05", "met"],
    [1.06, "1.00 ± 0.05", "missed"],
    [1.3, "≤ 1.3", "met"],
    [3, "<= 3 (per isolate)", "met"],
  ])("%d against %j is %s", (value, goal, expected) => {
    expect(judge(value, goal)).toBe(expected);
  });

  it.each([
    "reported",
    "reported (growth)",
    "reported; <= isolates (4 here), 1.000 in one isolate",
    "linear (report the slope)",
    "",
  ])("%j is only reported", (goal) => {
    expect(parseGoal(goal).kind).toBe("reported");
    expect(judge(12, goal)).toBe("reported");
  });

  it("never judges a value that is not a number", () => {
    expect(judge(Number.NaN, "0")).toBe("reported");
  });
});

describe("helpers", () => {
  it("groups by prefix and formats values for people", () => {
    expect(groupOf("ratelimit.vs_peer_ratio")).toBe("ratelimit");
    expect(groupOf("plain")).toBe("other");
    expect(formatValue(5000)).toBe("5,000");
    expect(formatValue(545.8333333333334)).toBe("545.8");
    expect(formatValue(1.0034)).toBe("1.003");
  });

  it("fits a line: slope and R²", () => {
    const fit = fitLine([
      { x: 100, y: 110 },
      { x: 1000, y: 1010 },
      { x: 5000, y: 5010 },
    ]);
    expect(fit?.slope).toBeCloseTo(1, 6);
    expect(fit?.r2).toBeCloseTo(1, 6);
    expect(fitLine([{ x: 1, y: 1 }])).toBeNull();
  });
});

describe("renderReport", () => {
  const metrics: Record<string, Metric> = {
    "load.auth_errors": { value: 0, unit: "count", goal: "0" },
    "bundle.auth_worker_gzip_kb": {
      value: 150.2,
      unit: "kB",
      goal: "<= 145",
      reason: "the identity SDK <builds> every service",
    },
    "core.dispatch_ratio": { value: 1.05, unit: "x", goal: "<= 1.10", reason: "never shown while the goal is met" },
    "revocation.fanout_ms_100": { value: 120, unit: "ms", goal: "reported (growth)" },
    "revocation.fanout_ms_1000": { value: 1000, unit: "ms", goal: "reported (growth)" },
    "revocation.fanout_ms_5000": { value: 4900, unit: "ms", goal: "reported (growth)" },
    "ratelimit.checks_per_ms_c1": { value: 0.5, unit: "checks/ms", goal: "reported" },
    "ratelimit.checks_per_ms_c50": { value: 7, unit: "checks/ms", goal: "reported" },
    "x.<script>": { value: 1, unit: "x", goal: "reported" },
  };
  const html = renderReport(metrics, { generatedAt: new Date("2026-01-02T03:04:05Z"), commit: "abc123" });

  it("stands alone: no script, no external stylesheet, image or font", () => {
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    expect(html).not.toMatch(/(?:src|href)="(?!#)/);
    expect(html).toContain("<title>Gatehouse bench: 2 met, 1 missed</title>");
    expect(html).toContain("2026-01-02 03:04:05 UTC");
    expect(html).toContain("abc123");
  });

  it("has a row per metric with its verdict in words, and escapes names", () => {
    for (const name of Object.keys(metrics).filter((n) => !n.includes("<"))) expect(html).toContain(`>${name}</code>`);
    expect(html).toContain("x.&lt;script&gt;");
    expect(html).toContain("✗ missed");
    expect(html).toContain("✓ met");
    expect(html.match(/<svg class="bar"/g)).toHaveLength(Object.keys(metrics).length);
  });

  it("draws the curves that exist, with a table of their values, and says which are missing", () => {
    expect(html).toMatch(/<svg class="plot"[^>]*role="img"/);
    expect(html).toContain("Values of the chart “Revocation by number of sessions”");
    expect(html).toContain("ms per 1,000 sessions");
    expect(html).toContain("Values of the chart “Limiter throughput by concurrency”");
    expect(html).toContain("Not measured in this run (no metrics named events.role_change_ms_&lt;N&gt;)");
    expect(html).toContain("Not measured in this run (no metrics named auth.matrix…)");
    expect(html).toContain(
      "Not measured in this run (no metrics named ratelimit.hot_key_calls_per_1k_checks_isolates_&lt;N&gt;)",
    );
  });

  it("shows a missed goal's reason beside its verdict and in the list of misses, escaped, and only when missed", () => {
    const row = html.slice(html.indexOf('id="m-bundle-auth_worker_gzip_kb"'));
    expect(row.slice(0, row.indexOf("</tr>"))).toMatch(
      /class="verdict missed">✗ missed<span class="reason">Why: the identity SDK &lt;builds&gt; every service<\/span>/,
    );
    expect(html).toMatch(/<ul class="missed-list"><li>.*Why: the identity SDK &lt;builds&gt; every service/);
    expect(html).not.toContain("never shown while the goal is met");
    const bare = renderReport(
      { "x.ratio": { value: 2, unit: "x", goal: "<= 1" } },
      { generatedAt: new Date(0), commit: "c" },
    );
    expect(bare).toContain("Why: no reason recorded by its bench.");
  });
});

describe("the hot-key curves", () => {
  const curve = { unit: "calls/1k checks", goal: "reported (curve by isolates)" };
  const metrics: Record<string, Metric> = {
    "ratelimit.hot_key_calls_per_1k_checks_isolates_1": { value: 1.95, ...curve },
    "ratelimit.hot_key_calls_per_1k_checks_isolates_8": { value: 4.1, ...curve },
    "ratelimit.hot_key_unleased_calls_per_1k_checks_isolates_1": { value: 497.6, ...curve },
    "ratelimit.hot_key_unleased_calls_per_1k_checks_isolates_8": { value: 480.8, ...curve },
    "ratelimit.hot_key_exactness_isolates_8": { value: 1, unit: "x", goal: "= 1.000" },
    "ratelimit.hot_key_peer_calls_per_1k_checks": { value: 1000, unit: "calls/1k checks", goal: "reported" },
  };
  const html = renderReport(metrics, { generatedAt: new Date(0), commit: "c" });
  const chart = html.slice(
    html.indexOf('id="hot-key-isolates"'),
    html.indexOf("</figure>", html.indexOf('id="hot-key-isolates"')),
  );

  it("draws calls per 1,000 checks by isolates, leased and unleased, with the peer's one point at 8", () => {
    expect(chart).toMatch(/<svg class="plot"[^>]*role="img"/);
    expect(chart).toContain("Values of the chart “Hot key: object calls by isolates” (calls per 1,000 checks)");
    expect(chart).toContain(
      '<th scope="col">Gatehouse (leases)</th><th scope="col">Gatehouse, leasing: false</th><th scope="col">peer (8 isolates)</th>',
    );
    expect(chart).toContain(
      '<tr><th scope="row">1</th><td><span title="ratelimit.hot_key_calls_per_1k_checks_isolates_1">1.95</span></td><td><span title="ratelimit.hot_key_unleased_calls_per_1k_checks_isolates_1">497.6</span></td><td>—</td></tr>',
    );
    expect(chart).toContain('<span title="ratelimit.hot_key_peer_calls_per_1k_checks">1,000</span>');
    // Exactness is a goal in the table, not a curve.
    expect(chart).not.toContain("hot_key_exactness");
  });
});

describe("the Better Auth matrix", () => {
  const bound = "Cloudflare, How KV works";
  const metrics: Record<string, Metric> = {
    "auth.matrix.ours_strict_vs_theirs_cache_on.resolve_ratio": { value: 7.5, unit: "x", goal: "reported" },
    "auth.matrix.ours_eventual_vs_theirs_cache_off.resolve_ratio": { value: 0.5, unit: "x", goal: "reported" },
    "auth.matrix.ours_eventual.revoked_window_ms.same_location": {
      value: 0,
      unit: "ms",
      goal: "reported",
      kind: "measured",
    },
    "auth.matrix.ours_eventual.revoked_window_ms.other_location": {
      value: 60_000,
      unit: "ms",
      goal: "reported",
      kind: "documented bound",
      source: bound,
    },
    "auth.matrix.theirs_cache_on.revoked_window_ms.other_location": {
      value: 300_001,
      unit: "ms",
      goal: "reported",
      kind: "measured",
    },
  };
  const html = renderReport(metrics, { generatedAt: new Date(0), commit: "c" });

  it("draws each cell's resolve ratio and each side's windows, labelled measured or documented bound", () => {
    const matrix = html.slice(
      html.indexOf('<table class="matrix">'),
      html.indexOf("</table>", html.indexOf('<table class="matrix">')),
    );
    expect(matrix).toContain("Gatehouse, strict");
    expect(matrix).toContain("Better Auth, cookie cache off");
    expect(matrix).toContain("7.5 x");
    expect(matrix).toContain("auth.matrix.ours_eventual_vs_theirs_cache_off.resolve_ratio");
    expect(matrix).toContain(
      '60,000 ms <span class="kind bound">documented bound <sup><a href="#matrix-source-1">[1]</a></sup>',
    );
    expect(matrix).toContain('300,001 ms <span class="kind">measured</span>');
    expect(html).toContain(`<li id="matrix-source-1">${bound}</li>`);
    // The row of a documented bound says so under its value too.
    const row = html.slice(html.indexOf('id="m-auth-matrix-ours_eventual-revoked_window_ms-other_location"'));
    expect(row.slice(0, row.indexOf("</tr>"))).toContain("documented bound");
  });
});

describe("printTable", () => {
  it("prints each verdict, then every missed goal with its reason", () => {
    const lines: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((line: string) => {
      lines.push(String(line));
    });
    try {
      printTable({
        "a.ratio": { value: 1.3, unit: "x", goal: "<= 1.2", reason: "the router" },
        "b.ratio": { value: 1.1, unit: "x", goal: "<= 1.2" },
        "c.window_ms": { value: 60_000, unit: "ms", goal: "reported", kind: "documented bound", source: "KV docs" },
      });
    } finally {
      log.mockRestore();
    }
    const out = lines.join("\n");
    expect(out).toMatch(/a\.ratio\s+1\.3\s+x\s+<= 1\.2\s+missed/);
    expect(out).toMatch(/b\.ratio\s+1\.1\s+x\s+<= 1\.2\s+met/);
    expect(out).toContain("reported (documented bound)");
    expect(out).toContain("✗ a.ratio: 1.3 x, goal <= 1.2. Why: the router");
    expect(out).toContain("c.window_ms: documented bound (KV docs), not measured here");
  });
});
