/**
 * @module
 * The bench's one picture: `bench/results/latest.html`, written from the merged results at the end
 * of `npm run bench` (bench/node/reporter.ts), or from the file as it stands with
 * `node tooling/results/report.ts` (`npm run bench:report`). Self-contained: inline CSS and SVG, no
 * script, no external asset. A bar per metric against its goal (met, missed or reported, said in
 * words, not by colour alone; a missed goal in red with the reason its bench gives), grouped by
 * prefix, with the values in tables, and the growth curves: revocation by sessions, the kill switch
 * by members, the role rewrite by sessions, the limiter's throughput by concurrency (ours and the
 * peer's), a hot key's object calls by isolates (leased, unleased, the peer's one point), and the
 * Better Auth matrix (resolve time and revocation window for each pairing of modes, each window
 * labelled measured or documented bound); each drawn from whatever of its metrics exist. Node only.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { costSection } from "./cost.ts";
import type { Metric } from "./metric.ts";

const ROOT = resolve(import.meta.dirname, "../..");
export const RESULTS_JSON = resolve(ROOT, "bench/results/latest.json");
export const REPORT_HTML = resolve(ROOT, "bench/results/latest.html");

// ---------------------------------------------------------------------------------------------
// Goals

export type Goal =
  | { kind: "reported"; text: string }
  | { kind: "compare"; op: "<=" | "<" | ">=" | ">" | "="; target: number; tolerance: number; text: string }
  | { kind: "range"; target: number; tolerance: number; text: string };

export type Verdict = "met" | "missed" | "reported";

const NUMBER = String.raw`(-?\d+(?:\.\d+)?)`;

/** Half a unit of the last digit written: "= 1.000" accepts what rounds to 1.000. */
function halfUnit(written: string): number {
  const decimals = written.split(".")[1]?.length ?? 0;
  return 0.5 * 10 ** -decimals;
}

/**
 * Reads a goal string: `<= 1.2`, `< 100`, `>= 1.5`, `> 0`, `= 1.000`, a bare number (`0`, `1`: equal
 * to it), `1.00 ± 0.05`. Anything else (`reported …`, `linear (report the slope)`) is reported: shown,
 * never judged. Text after the number (`<= 3 (per isolate)`) is kept for display only.
 */
export function parseGoal(text: string): Goal {
  const goal = text.trim();
  if (/^reported\b/i.test(goal)) return { kind: "reported", text };
  const range = new RegExp(String.raw`^${NUMBER}\s*(?:±|\+/-)\s*(\d+(?:\.\d+)?)`).exec(goal);
  if (range) return { kind: "range", target: Number(range[1]), tolerance: Number(range[2]), text };
  const compare = new RegExp(String.raw`^(<=|>=|≤|≥|<|>|==?)\s*${NUMBER}(?![\d.])`).exec(goal);
  if (compare) {
    const ops: Record<string, "<=" | "<" | ">=" | ">" | "="> = {
      "<=": "<=",
      "≤": "<=",
      "<": "<",
      ">=": ">=",
      "≥": ">=",
      ">": ">",
      "=": "=",
      "==": "=",
    };
    return {
      kind: "compare",
      op: ops[compare[1]!]!,
      target: Number(compare[2]),
      tolerance: halfUnit(compare[2]!),
      text,
    };
  }
  const bare = new RegExp(String.raw`^${NUMBER}(?![\d.])`).exec(goal);
  if (bare) return { kind: "compare", op: "=", target: Number(bare[1]), tolerance: halfUnit(bare[1]!), text };
  return { kind: "reported", text };
}

/** Whether `value` meets `goal`; a reported goal (or a value that is not a finite number) is only reported. */
export function verdict(value: number, goal: Goal): Verdict {
  if (goal.kind === "reported" || !Number.isFinite(value)) return "reported";
  const slack = 1e-9 * Math.max(1, Math.abs(goal.target));
  if (goal.kind === "range") return Math.abs(value - goal.target) <= goal.tolerance + slack ? "met" : "missed";
  const { op, target } = goal;
  const ok =
    op === "<="
      ? value <= target + slack
      : op === "<"
        ? value < target
        : op === ">="
          ? value >= target - slack
          : op === ">"
            ? value > target
            : Math.abs(value - target) <= goal.tolerance + slack;
  return ok ? "met" : "missed";
}

// ---------------------------------------------------------------------------------------------
// Formatting

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** A value as people read it: integers with separators, others with up to 3 decimals (1 past 100). */
export function formatValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return value.toLocaleString("en-US");
  if (Math.abs(value) >= 100) return Number(value.toFixed(1)).toLocaleString("en-US");
  if (Math.abs(value) >= 0.01) return String(Number(value.toFixed(3)));
  return value.toPrecision(2);
}

const VERDICT_TEXT: Record<Verdict, string> = { met: "✓ met", missed: "✗ missed", reported: "· reported" };

/** Why a missed goal is missed, as its bench says; a missed goal without one says that instead. */
export function reasonOf(metric: Metric): string {
  const reason = metric.reason?.trim();
  return reason ? `Why: ${reason}` : "Why: no reason recorded by its bench.";
}

/** The prefix a metric is grouped under (`ratelimit.vs_peer_ratio` → `ratelimit`). */
export function groupOf(name: string): string {
  const dot = name.indexOf(".");
  return dot > 0 ? name.slice(0, dot) : "other";
}

// ---------------------------------------------------------------------------------------------
// Bars

const BAR_W = 260;
const BAR_H = 20;

/** The bar of one metric: its value against its goal (a line, or a band for `±`), on its own scale. */
function bar(value: number, goal: Goal, v: Verdict, reportedMax: number): string {
  const v0 = Math.max(0, Number.isFinite(value) ? value : 0);
  let max: number;
  let marker = "";
  if (goal.kind === "reported") max = reportedMax > 0 ? reportedMax * 1.05 : 1;
  else {
    const reach = goal.kind === "range" ? goal.target + goal.tolerance : goal.target;
    max = Math.max(v0, reach, 0) * 1.2 || 1;
  }
  const x = (n: number) => Math.max(0, Math.min(BAR_W, (n / max) * BAR_W));
  if (goal.kind === "range") {
    const a = x(goal.target - goal.tolerance);
    const b = x(goal.target + goal.tolerance);
    marker = `<rect class="band" x="${a.toFixed(1)}" y="0" width="${Math.max(1, b - a).toFixed(1)}" height="${BAR_H}"/>`;
  } else if (goal.kind === "compare") {
    const gx = x(goal.target);
    marker = `<line class="goal" x1="${gx.toFixed(1)}" x2="${gx.toFixed(1)}" y1="0" y2="${BAR_H}"/>`;
  }
  const width = value > 0 && x(v0) < 1.5 ? 1.5 : x(v0);
  return `<svg class="bar" width="${BAR_W}" height="${BAR_H}" viewBox="0 0 ${BAR_W} ${BAR_H}" aria-hidden="true" focusable="false"><rect class="track" x="0" y="3" width="${BAR_W}" height="${BAR_H - 6}"/><rect class="fill ${v}" x="0" y="3" width="${width.toFixed(1)}" height="${BAR_H - 6}"/>${marker}</svg>`;
}

// ---------------------------------------------------------------------------------------------
// Line charts

interface Series {
  key: string;
  label: string;
  points: { x: number; y: number; metric: string }[];
}

const MARKERS = ["circle", "square", "triangle", "diamond"] as const;
const DASHES = ["", "7 4", "2 3", "10 3 2 3"];

function markerShape(kind: (typeof MARKERS)[number], cx: number, cy: number): string {
  const r = 4.5;
  switch (kind) {
    case "circle":
      return `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="${r}"/>`;
    case "square":
      return `<rect x="${(cx - r).toFixed(1)}" y="${(cy - r).toFixed(1)}" width="${2 * r}" height="${2 * r}"/>`;
    case "triangle":
      return `<polygon points="${cx.toFixed(1)},${(cy - r - 1).toFixed(1)} ${(cx - r - 1).toFixed(1)},${(cy + r).toFixed(1)} ${(cx + r + 1).toFixed(1)},${(cy + r).toFixed(1)}"/>`;
    default:
      return `<polygon points="${cx.toFixed(1)},${(cy - r - 1).toFixed(1)} ${(cx + r + 1).toFixed(1)},${cy.toFixed(1)} ${cx.toFixed(1)},${(cy + r + 1).toFixed(1)} ${(cx - r - 1).toFixed(1)},${cy.toFixed(1)}"/>`;
  }
}

/** Round ticks (steps of 1, 2 or 5 × 10^k) from 0 to the first at or past `max`. */
function ticks(max: number, count = 5): number[] {
  if (max <= 0) return [0];
  const raw = max / count;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? raw;
  const out: number[] = [0];
  while (out[out.length - 1]! < max) out.push(Number((out.length * step).toPrecision(12)));
  return out;
}

/** Least-squares slope and R² of y over x (null with fewer than two distinct x). */
export function fitLine(points: readonly { x: number; y: number }[]): { slope: number; r2: number } | null {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const p of points) {
    sxx += (p.x - mx) ** 2;
    sxy += (p.x - mx) * (p.y - my);
    syy += (p.y - my) ** 2;
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return { slope, r2 };
}

interface ChartSpec {
  id: string;
  title: string;
  /** What the chart shows, in one sentence (also the SVG's description). */
  description: string;
  xLabel: string;
  yLabel: string;
  logX: boolean;
  series: Series[];
  /** Metric names that would feed the chart, for the note when none exist. */
  expected: string;
  /** Least-squares slope per series, in this unit of x (e.g. 1000 sessions). */
  slopePer?: { x: number; label: string };
}

let chartCount = 0;

function lineChart(spec: ChartSpec): string {
  const drawn = spec.series.filter((s) => s.points.length > 0);
  const head = `<h3 id="${spec.id}">${escapeHtml(spec.title)}</h3>`;
  if (drawn.length === 0) {
    return `<figure class="chart">${head}<p class="note">Not measured in this run (no metrics named ${escapeHtml(spec.expected)}).</p></figure>`;
  }
  const W = 720;
  const H = 300;
  const m = { left: 64, right: 190, top: 16, bottom: 48 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const xs = [...new Set(drawn.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const xMin = spec.logX ? Math.min(...xs) : 0;
  const xMax = Math.max(...xs);
  const xPos = (x: number) => {
    if (spec.logX) {
      const lo = Math.log10(xMin);
      const hi = Math.log10(xMax);
      return m.left + (hi === lo ? pw / 2 : ((Math.log10(x) - lo) / (hi - lo)) * pw);
    }
    return m.left + (xMax === 0 ? 0 : (x / xMax) * pw);
  };
  const yTicks = ticks(Math.max(...drawn.flatMap((s) => s.points.map((p) => p.y))) * 1.08);
  const yMax = yTicks[yTicks.length - 1]! || 1;
  const yPos = (y: number) => m.top + ph - (y / yMax) * ph;
  const n = ++chartCount;
  const parts: string[] = [];
  for (const t of yTicks) {
    const y = yPos(t).toFixed(1);
    parts.push(`<line class="grid" x1="${m.left}" x2="${m.left + pw}" y1="${y}" y2="${y}"/>`);
    parts.push(`<text class="tick" x="${m.left - 8}" y="${y}" text-anchor="end" dy="0.32em">${formatValue(t)}</text>`);
  }
  for (const x of xs) {
    const px = xPos(x).toFixed(1);
    parts.push(`<line class="grid" x1="${px}" x2="${px}" y1="${m.top}" y2="${m.top + ph}"/>`);
    parts.push(`<text class="tick" x="${px}" y="${m.top + ph + 18}" text-anchor="middle">${formatValue(x)}</text>`);
  }
  parts.push(`<line class="axis" x1="${m.left}" x2="${m.left + pw}" y1="${m.top + ph}" y2="${m.top + ph}"/>`);
  parts.push(`<line class="axis" x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + ph}"/>`);
  parts.push(
    `<text class="label" x="${m.left + pw / 2}" y="${H - 8}" text-anchor="middle">${escapeHtml(spec.xLabel)}${spec.logX ? " (log scale)" : ""}</text>`,
  );
  parts.push(
    `<text class="label" transform="translate(14 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(spec.yLabel)}</text>`,
  );
  drawn.forEach((s, i) => {
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    const cls = `s${i % 4}`;
    const path = pts.map((p) => `${xPos(p.x).toFixed(1)},${yPos(p.y).toFixed(1)}`).join(" ");
    const dash = DASHES[i % DASHES.length] ? ` stroke-dasharray="${DASHES[i % DASHES.length]}"` : "";
    parts.push(`<polyline class="line ${cls}" points="${path}"${dash}/>`);
    parts.push(
      `<g class="marker ${cls}">${pts.map((p) => markerShape(MARKERS[i % MARKERS.length]!, xPos(p.x), yPos(p.y))).join("")}</g>`,
    );
    const last = pts[pts.length - 1]!;
    parts.push(
      `<text class="direct ${cls}" x="${(xPos(last.x) + 10).toFixed(1)}" y="${yPos(last.y).toFixed(1)}" dy="0.32em">${escapeHtml(s.label)}</text>`,
    );
  });
  const titleId = `chart-${n}-title`;
  const descId = `chart-${n}-desc`;
  const svg = `<svg class="plot" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${titleId} ${descId}"><title id="${titleId}">${escapeHtml(spec.title)}</title><desc id="${descId}">${escapeHtml(spec.description)}</desc>${parts.join("")}</svg>`;
  const legend = drawn
    .map((s, i) => {
      const cls = `s${i % 4}`;
      const dash = DASHES[i % DASHES.length] ? ` stroke-dasharray="${DASHES[i % DASHES.length]}"` : "";
      return `<li><svg width="36" height="14" aria-hidden="true" focusable="false"><line class="line ${cls}" x1="2" x2="34" y1="7" y2="7"${dash}/><g class="marker ${cls}">${markerShape(MARKERS[i % MARKERS.length]!, 18, 7)}</g></svg> ${escapeHtml(s.label)}</li>`;
    })
    .join("");
  const slopes = spec.slopePer
    ? drawn
        .map((s) => {
          const fit = fitLine(s.points);
          if (!fit) return null;
          const per = fit.slope * spec.slopePer!.x;
          return `<li>${escapeHtml(s.label)}: ${formatValue(per)} ${escapeHtml(spec.slopePer!.label)} (least squares over ${s.points.length} points, R² ${fit.r2.toFixed(3)})</li>`;
        })
        .filter((l) => l !== null)
    : [];
  const header = `<tr><th scope="col">${escapeHtml(spec.xLabel)}</th>${drawn.map((s) => `<th scope="col">${escapeHtml(s.label)}</th>`).join("")}</tr>`;
  const rows = xs
    .map((x) => {
      const cells = drawn.map((s) => {
        const p = s.points.find((q) => q.x === x);
        return `<td>${p ? `<span title="${escapeHtml(p.metric)}">${formatValue(p.y)}</span>` : "—"}</td>`;
      });
      return `<tr><th scope="row">${formatValue(x)}</th>${cells.join("")}</tr>`;
    })
    .join("");
  return `<figure class="chart">${head}<p class="note">${escapeHtml(spec.description)}</p>${svg}<ul class="legend">${legend}</ul>${
    slopes.length > 0 ? `<p class="note">Growth (slope):</p><ul class="slopes">${slopes.join("")}</ul>` : ""
  }<table class="data"><caption>Values of the chart “${escapeHtml(spec.title)}” (${escapeHtml(spec.yLabel)})</caption><thead>${header}</thead><tbody>${rows}</tbody></table></figure>`;
}

/** Series from metrics named by `pattern` (groups: series key, x), labelled by `labels` (else the key). */
function seriesOf(
  metrics: Record<string, Metric>,
  pattern: RegExp,
  labels: Record<string, string>,
  order: readonly string[] = [],
): Series[] {
  const byKey = new Map<string, Series>();
  for (const [name, metric] of Object.entries(metrics)) {
    const match = pattern.exec(name);
    if (!match || !Number.isFinite(metric.value)) continue;
    const key = match[1]!;
    const series = byKey.get(key) ?? { key, label: labels[key] ?? key.replaceAll("_", " "), points: [] };
    series.points.push({ x: Number(match[2]), y: metric.value, metric: name });
    byKey.set(key, series);
  }
  const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
  return [...byKey.values()].sort((a, b) => rank(a.key) - rank(b.key) || a.key.localeCompare(b.key));
}

/** The growth curves: only series with two points or more make a curve. */
/** A growth chart in milliseconds by number of sessions, with its slope, of the series named by `pattern`. */
function sessionsChart(
  metrics: Record<string, Metric>,
  chart: {
    id: string;
    title: string;
    description: string;
    pattern: RegExp;
    labels: Record<string, string>;
    expected: string;
    /** What x counts (default: sessions). */
    xLabel?: string;
  },
): string {
  const series = seriesOf(metrics, chart.pattern, chart.labels, Object.keys(chart.labels));
  const xLabel = chart.xLabel ?? "sessions";
  return lineChart({
    id: chart.id,
    title: chart.title,
    description: chart.description,
    xLabel,
    yLabel: "milliseconds",
    logX: false,
    series: series.filter((s) => s.points.length >= 2),
    expected: chart.expected,
    slopePer: { x: 1000, label: `ms per 1,000 ${xLabel}` },
  });
}

function growthCharts(metrics: Record<string, Metric>): string[] {
  return [
    sessionsChart(metrics, {
      id: "revocation-growth",
      title: "Revocation by number of sessions",
      description:
        "Milliseconds to revoke every session of one user, by how many there are: the KV drain (fan-out) against two floors of the same KV writes issued straight from a Worker within production's 1,000 operations per invocation (one with the drain's own batching and parallelism; the fastest of several batch sizes and parallelisms tried in the same run, which the ratio is taken against), and the strict-mode notice.",
      pattern: /^revocation\.(fanout|floor|fastest_floor|notify)_ms_(\d+)$/,
      labels: {
        fanout: "drain (fan-out)",
        floor: "floor (drain's batching)",
        fastest_floor: "fastest floor",
        notify: "strict notice",
      },
      expected: "revocation.fanout_ms_<N> or revocation.floor_ms_<N>",
    }),
    sessionsChart(metrics, {
      id: "kill-switch-growth",
      title: "Kill switch by number of members",
      description:
        "Milliseconds for an organization's kill switch, by how many members (one session each) it has: from the call until it answers, and from its answer until every member's session is refused in strict mode (members past one invocation's share are told from the organization's alarm).",
      pattern: /^revocation\.kill_switch_(answer|refused_all)_ms_(\d+)$/,
      labels: { answer: "call → answer", refused_all: "answer → all refused" },
      expected: "revocation.kill_switch_refused_all_ms_<N>",
      xLabel: "members",
    }),
    sessionsChart(metrics, {
      id: "role-change-growth",
      title: "Role change by number of live sessions",
      description:
        "Milliseconds to rewrite every live session of one user after a role change, by how many there are, against its floors: raw KV puts of the same records, and the same records read in bulk and put back (a read-modify-write, which the rewrite is).",
      pattern: /^events\.(role_change|role_change_floor|role_change_read_put_floor)_ms_(\d+)$/,
      labels: {
        role_change: "rewrite",
        role_change_floor: "floor (raw KV puts)",
        role_change_read_put_floor: "floor (bulk reads + puts)",
      },
      expected: "events.role_change_ms_<N>",
    }),
    lineChart({
      id: "limiter-concurrency",
      title: "Limiter throughput by concurrency",
      description:
        "Rate-limit checks answered per millisecond by how many are in flight (1 to 200): Gatehouse's exact limiter against the peer (@hono-rate-limiter/cloudflare's Durable Object store). Higher is better.",
      xLabel: "checks in flight",
      yLabel: "checks per ms",
      logX: true,
      series: seriesOf(
        metrics,
        /^ratelimit\.(checks|peer_checks)_per_ms_c(\d+)$/,
        { checks: "Gatehouse", peer_checks: "peer" },
        ["checks", "peer_checks"],
      ),
      expected: "ratelimit.checks_per_ms_c<N> or ratelimit.peer_checks_per_ms_c<N>",
    }),
    hotKeyChart(metrics),
  ];
}

/** The peer's hot-key figure, measured at 8 isolates only (the bench says why). */
const HOT_KEY_PEER = "ratelimit.hot_key_peer_calls_per_1k_checks";

/** A hot key's object calls per 1,000 checks by isolates: ours leased and unleased, and the peer's one point. */
function hotKeyChart(metrics: Record<string, Metric>): string {
  const peer = metrics[HOT_KEY_PEER];
  return lineChart({
    id: "hot-key-isolates",
    title: "Hot key: object calls by isolates",
    description:
      "Calls that reached one hot key's Durable Object per 1,000 checks, by how many isolates share the same 20,000 checks (limit 10,000 per 60 s window, 50 in flight in each isolate): Gatehouse's exact limiter with leases and with leasing: false, and the peer (@hono-rate-limiter/cloudflare, one call per check, measured at 8 isolates only). Lower is better.",
    xLabel: "isolates",
    yLabel: "calls per 1,000 checks",
    logX: true,
    series: [
      ...seriesOf(
        metrics,
        /^ratelimit\.hot_key_(calls|unleased_calls)_per_1k_checks_isolates_(\d+)$/,
        { calls: "Gatehouse (leases)", unleased_calls: "Gatehouse, leasing: false" },
        ["calls", "unleased_calls"],
      ),
      ...(peer && Number.isFinite(peer.value)
        ? [{ key: "peer", label: "peer (8 isolates)", points: [{ x: 8, y: peer.value, metric: HOT_KEY_PEER }] }]
        : []),
    ],
    expected: "ratelimit.hot_key_calls_per_1k_checks_isolates_<N>",
  });
}

// ---------------------------------------------------------------------------------------------
// Better Auth matrix

const OURS = [
  ["ours_strict", "Gatehouse, strict"],
  ["ours_eventual", "Gatehouse, eventual"],
] as const;
const THEIRS = [
  ["theirs_cache_on", "Better Auth, cookie cache on"],
  ["theirs_cache_off", "Better Auth, cookie cache off"],
] as const;
const LOCATIONS = [
  ["same_location", "where the revoke ran"],
  ["other_location", "elsewhere"],
] as const;

/** How a figure was obtained, in words: measured (with the document its setting comes from), or the bound a document states (and which). */
export function kindText(metric: Metric): string {
  if (metric.kind !== "documented bound")
    return metric.source ? `measured (setting as documented: ${metric.source})` : "measured";
  return metric.source ? `documented bound (${metric.source})` : "documented bound";
}

function kindHtml(metric: Metric): string {
  const cls = metric.kind === "documented bound" ? "kind bound" : "kind";
  return `<span class="${cls}">${escapeHtml(kindText(metric))}</span>`;
}

/** The matrix's short label (measured / documented bound) with a numbered note for its source. */
function shortKind(metric: Metric, sources: string[]): string {
  const cls = metric.kind === "documented bound" ? "kind bound" : "kind";
  const words = metric.kind === "documented bound" ? "documented bound" : "measured";
  if (!metric.source) return `<span class="${cls}">${words}</span>`;
  if (!sources.includes(metric.source)) sources.push(metric.source);
  const n = sources.indexOf(metric.source) + 1;
  return `<span class="${cls}">${words} <sup><a href="#matrix-source-${n}">[${n}]</a></sup></span>`;
}

/** One side's window at one location: value, unit and how it was obtained; a dash when absent. */
function windowCell(metrics: Record<string, Metric>, side: string, location: string, sources: string[]): string {
  const m = metrics[`auth.matrix.${side}.revoked_window_ms.${location}`];
  return m ? `${formatValue(m.value)} ${escapeHtml(m.unit)} ${shortKind(m, sources)}` : "—";
}

/**
 * The Better Auth matrix (`auth.matrix.*`): for each pairing of our revocation mode with their
 * cookie cache, the resolve time ratio (ours over theirs), and each side's revocation window where
 * the revoke ran and elsewhere, each labelled measured or documented bound; the windows also as bars.
 */
function betterAuthMatrix(metrics: Record<string, Metric>): string {
  const title = "Better Auth matrix: resolve time and revocation window";
  const present = Object.keys(metrics).some((name) => name.startsWith("auth.matrix."));
  if (!present) {
    return `<figure class="chart"><h3 id="better-auth-matrix">${title}</h3><p class="note">Not measured in this run (no metrics named auth.matrix…).</p></figure>`;
  }
  const sources: string[] = [];
  const sideWindows = (side: string) =>
    `<ul class="windows">${LOCATIONS.map(([loc, words]) => `<li>${escapeHtml(words)}: ${windowCell(metrics, side, loc, sources)}</li>`).join("")}</ul>`;
  const head = `<tr><td></td>${THEIRS.map(([key, label]) => `<th scope="col">${escapeHtml(label)}<br><span class="note">revoked session accepted</span>${sideWindows(key)}</th>`).join("")}</tr>`;
  const rows = OURS.map(([ours, label]) => {
    const cells = THEIRS.map(([theirs]) => {
      const name = `auth.matrix.${ours}_vs_${theirs}.resolve_ratio`;
      const m = metrics[name];
      return `<td>${m ? `resolve: <strong>${formatValue(m.value)} ${escapeHtml(m.unit)}</strong> <span class="note">(ours over theirs)</span><br><code>${escapeHtml(name)}</code>` : "—"}</td>`;
    });
    return `<tr><th scope="row">${escapeHtml(label)}<br><span class="note">revoked session accepted</span>${sideWindows(ours)}</th>${cells.join("")}</tr>`;
  }).join("");
  // The windows as bars on one scale: the longer of the two locations per side.
  const sides = [...OURS, ...THEIRS]
    .map(([key, label]) => {
      const found = LOCATIONS.map(([loc]) => metrics[`auth.matrix.${key}.revoked_window_ms.${loc}`]).filter(
        (m): m is Metric => m !== undefined,
      );
      if (found.length === 0) return null;
      const worst = found.reduce((a, b) => (b.value > a.value ? b : a));
      return { label, worst };
    })
    .filter((s) => s !== null);
  const max = Math.max(...sides.map((s) => s.worst.value), 0) || 1;
  const bars = sides
    .map(({ label, worst }) => {
      const width = Math.max(worst.value > 0 ? 1.5 : 0, (Math.max(0, worst.value) / max) * BAR_W);
      const cls = worst.kind === "documented bound" ? "bound" : "reported";
      return `<tr><th scope="row">${escapeHtml(label)}</th><td class="num">${formatValue(worst.value)} ${escapeHtml(worst.unit)}</td><td>${shortKind(worst, sources)}</td><td><svg class="bar" width="${BAR_W}" height="${BAR_H}" aria-hidden="true" focusable="false"><rect class="track" x="0" y="3" width="${BAR_W}" height="${BAR_H - 6}"/><rect class="fill ${cls}" x="0" y="3" width="${width.toFixed(1)}" height="${BAR_H - 6}"/></svg></td></tr>`;
    })
    .join("");
  return `<figure class="chart"><h3 id="better-auth-matrix">${title}</h3><p class="note">Each cell: our resolve time over theirs in the same run (below 1: ours is faster). Beside each mode: how long a revoked session is still accepted, where the revoke ran and at another location, each either measured here or a bound the platform's or library's documentation states (local workerd has one KV location, so KV's propagation to others cannot be measured).</p><table class="matrix"><thead>${head}</thead><tbody>${rows}</tbody></table><h3 id="revocation-window">Revocation window: how long a revoked session is still accepted (the longer location)</h3><p class="note">Shorter is better. A filled bar is measured; a dashed outline is a documented bound.</p><table class="metrics"><thead><tr><th scope="col">mode</th><th scope="col">window</th><th scope="col">how obtained</th><th scope="col">bar (shared scale)</th></tr></thead><tbody>${bars}</tbody></table><ol class="sources">${sources.map((src, i) => `<li id="matrix-source-${i + 1}">${escapeHtml(src)}</li>`).join("")}</ol></figure>`;
}

// ---------------------------------------------------------------------------------------------
// The page

export interface ReportInfo {
  generatedAt: Date;
  /** The commit the run measured, e.g. `35e2815 (with uncommitted changes)`. */
  commit: string;
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#fff;--card:#f6f8fa;--line:#d0d7de;--met:#1a7f37;--missed:#cf222e;--reported:#6e7781;--goal:#1b1f24;--s0:#0969da;--s1:#bc4c00;--s2:#8250df;--s3:#1a7f37}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--card:#161b22;--line:#30363d;--met:#3fb950;--missed:#ff7b72;--reported:#8b949e;--goal:#e6edf3;--s0:#58a6ff;--s1:#f0883e;--s2:#bc8cff;--s3:#3fb950}}
*{box-sizing:border-box}body{margin:0 auto;max-width:1100px;padding:24px;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:1.6rem;margin:0 0 4px}h2{font-size:1.25rem;margin:32px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:1.05rem;margin:0 0 6px}
.meta,.note{color:var(--muted);margin:4px 0}code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace}
.summary{display:flex;gap:12px;flex-wrap:wrap;margin:16px 0}.tile{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;min-width:130px}.tile strong{display:block;font-size:1.5rem}
.tile.met strong{color:var(--met)}.tile.missed strong{color:var(--missed)}.tile.reported strong{color:var(--reported)}
table{border-collapse:collapse;width:100%;margin:8px 0}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:middle}thead th{font-size:.85rem;color:var(--muted);font-weight:600}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}.verdict{white-space:nowrap;font-weight:600}.verdict.met{color:var(--met)}.verdict.missed{color:var(--missed)}.verdict.reported{color:var(--reported);font-weight:400}
tr.missed th{border-left:4px solid var(--missed)}tr.met th{border-left:4px solid var(--met)}tr.reported th{border-left:4px solid transparent}
.bar .track{fill:var(--card);stroke:var(--line)}.bar .fill.met{fill:var(--met)}.bar .fill.missed{fill:var(--missed)}.bar .fill.reported{fill:var(--reported)}.bar .goal{stroke:var(--goal);stroke-width:2.5}.bar .band{fill:var(--goal);opacity:.25}
.charts{display:grid;gap:24px}.chart{margin:0;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px}
.plot{width:100%;height:auto;max-width:720px;display:block}.plot .grid{stroke:var(--line);stroke-width:1}.plot .axis{stroke:var(--muted)}.plot text{fill:var(--fg);font-size:12px}.plot .tick{fill:var(--muted)}
.line{fill:none;stroke-width:2.5}.marker{stroke:var(--bg);stroke-width:1}.s0.line{stroke:var(--s0)}.s1.line{stroke:var(--s1)}.s2.line{stroke:var(--s2)}.s3.line{stroke:var(--s3)}
.s0.marker,.direct.s0{fill:var(--s0)}.s1.marker,.direct.s1{fill:var(--s1)}.s2.marker,.direct.s2{fill:var(--s2)}.s3.marker,.direct.s3{fill:var(--s3)}
.plot text.direct{font-weight:600}.legend{list-style:none;padding:0;display:flex;gap:16px;flex-wrap:wrap;margin:6px 0}.legend li{display:flex;align-items:center;gap:6px}
table.data{max-width:720px}table.data caption{text-align:left;color:var(--muted);font-size:.85rem;caption-side:bottom;padding-top:4px}
.missed-list a{color:var(--missed)}a{color:var(--s0)}
.reason{display:block;font-weight:400;font-size:.85rem;color:var(--missed);white-space:normal;max-width:32em}.missed-list .reason{display:inline;max-width:none}
.kind{display:block;font-size:.8rem;color:var(--muted)}.kind.bound{font-style:italic}.bar .fill.bound{fill:none;stroke:var(--reported);stroke-width:1.5;stroke-dasharray:4 2}
table.matrix th,table.matrix td{vertical-align:top}table.matrix th[scope="row"]{width:30%}table.matrix .windows{margin:4px 0;padding-left:18px;font-weight:400}table.matrix .kind{display:inline}
`;

/** The whole page for `metrics`. */
export function renderReport(metrics: Record<string, Metric>, info: ReportInfo): string {
  chartCount = 0;
  const names = Object.keys(metrics).sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  const judged = names.map((name) => {
    const metric = metrics[name]!;
    const goal = parseGoal(String(metric.goal ?? ""));
    return { name, metric, goal, verdict: verdict(Number(metric.value), goal) };
  });
  const count = (v: Verdict) => judged.filter((j) => j.verdict === v).length;
  const groups = [...new Set(judged.map((j) => groupOf(j.name)))];
  const anchor = (name: string) => `m-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;

  const missed = judged.filter((j) => j.verdict === "missed");
  const missedList =
    missed.length === 0
      ? `<p>Every goal that can be judged is met.</p>`
      : `<p>Goals missed:</p><ul class="missed-list">${missed
          .map(
            (j) =>
              `<li><a href="#${anchor(j.name)}"><code>${escapeHtml(j.name)}</code></a>: ${formatValue(j.metric.value)} ${escapeHtml(j.metric.unit)}, goal ${escapeHtml(j.goal.text)}. <span class="reason">${escapeHtml(reasonOf(j.metric))}</span></li>`,
          )
          .join("")}</ul>`;

  const sections = groups.map((group) => {
    const rows = judged.filter((j) => groupOf(j.name) === group);
    const met = rows.filter((r) => r.verdict === "met").length;
    const miss = rows.filter((r) => r.verdict === "missed").length;
    const body = rows
      .map((r) => {
        // A reported figure has no goal to scale against: the largest of its group in the same unit.
        const peers = rows.filter((p) => p.verdict === "reported" && p.metric.unit === r.metric.unit);
        const reportedMax = Math.max(0, ...peers.map((p) => Number(p.metric.value)).filter(Number.isFinite));
        // A missed goal's reason beside its verdict (in red, with the words); a documented bound says so under its value.
        const why = r.verdict === "missed" ? `<span class="reason">${escapeHtml(reasonOf(r.metric))}</span>` : "";
        const kind = r.metric.kind === "documented bound" || r.metric.source ? kindHtml(r.metric) : "";
        return `<tr class="${r.verdict}" id="${anchor(r.name)}"><th scope="row"><code>${escapeHtml(r.name)}</code></th><td class="num">${formatValue(Number(r.metric.value))} ${escapeHtml(r.metric.unit)}${kind}</td><td>${escapeHtml(r.goal.text)}</td><td class="verdict ${r.verdict}">${VERDICT_TEXT[r.verdict]}${why}</td><td>${bar(Number(r.metric.value), r.goal, r.verdict, reportedMax)}</td></tr>`;
      })
      .join("");
    return `<section aria-labelledby="g-${group}"><h2 id="g-${group}">${escapeHtml(group)}</h2><p class="note">${met} met, ${miss} missed, ${rows.length - met - miss} reported</p><table class="metrics"><thead><tr><th scope="col">metric</th><th scope="col">value</th><th scope="col">goal</th><th scope="col">verdict</th><th scope="col">against the goal</th></tr></thead><tbody>${body}</tbody></table></section>`;
  });

  const date = info.generatedAt
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, " UTC");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gatehouse bench: ${count("met")} met, ${count("missed")} missed</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>Gatehouse bench</h1>
<p class="meta">Run ${escapeHtml(date)} · commit <code>${escapeHtml(info.commit)}</code> · ${names.length} metrics from <code>bench/results/latest.json</code></p>
</header>
<main>
<section aria-labelledby="summary"><h2 id="summary">Where we stand</h2>
<div class="summary">
<div class="tile met"><strong>${count("met")}</strong>goals met</div>
<div class="tile missed"><strong>${count("missed")}</strong>goals missed</div>
<div class="tile reported"><strong>${count("reported")}</strong>reported, no goal</div>
</div>
${missedList}
<p class="note">Each bar is the measured value on its own scale; the dark line is the goal (a shaded band for a goal with a tolerance). Reported figures are scaled against the largest figure of their group in the same unit.</p>
</section>
<section aria-labelledby="growth"><h2 id="growth">Growth</h2>
<div class="charts">${growthCharts(metrics).join("")}${betterAuthMatrix(metrics)}</div>
</section>
${costSection(metrics)}
${sections.join("\n")}
</main>
</body>
</html>
`;
}

/** The commit of the checkout, marked when files differ from it; "unknown" without git. */
export function currentCommit(cwd = ROOT): string {
  try {
    const git = (args: string[]) =>
      execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const commit = git(["rev-parse", "--short=12", "HEAD"]);
    const dirty = git(["status", "--porcelain", "--untracked-files=no"]) !== "";
    return dirty ? `${commit} (with uncommitted changes)` : commit;
  } catch {
    return "unknown";
  }
}

/** Writes the report for `metrics` to `bench/results/latest.html`; returns its path. */
export function writeReport(metrics: Record<string, Metric>, info?: Partial<ReportInfo>): string {
  const html = renderReport(metrics, {
    generatedAt: info?.generatedAt ?? new Date(),
    commit: info?.commit ?? currentCommit(),
  });
  mkdirSync(dirname(REPORT_HTML), { recursive: true });
  writeFileSync(REPORT_HTML, html);
  return REPORT_HTML;
}

// `node tooling/results/report.ts`: the report of the results file as it stands.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!existsSync(RESULTS_JSON)) {
    // A fresh clone has no results yet: say what to run instead of a stack trace.
    console.error(`bench:report: ${RESULTS_JSON} does not exist yet; run \`npm run bench\` first`);
    process.exit(1);
  }
  const metrics = JSON.parse(readFileSync(RESULTS_JSON, "utf8")) as Record<string, Metric>;
  console.log(`wrote ${writeReport(metrics)}`);
}
