/**
 * ARCHITECTURE.md is a map, not a log (issue 28): it holds goals and the documented limits of other
 * systems, never the numbers one run measured (those are in the bench report: `npm run bench`).
 * This fails on the obvious shapes of a per-run measurement, read on the text with its line breaks
 * folded into spaces:
 * - run counts: "in the last four", "over five runs";
 * - "measured" followed by a number ("measured 2.1×", "Measured: 500 …") and "× (measured";
 * - a range of decimals ("1.27–1.53"), which goals never are;
 * - a number followed by "here" ("1.30 here");
 * - a duration in ms, a size in kB, or a ratio with "×", unless the few words before it make it a
 *   goal, a default or a limit (`ALLOWED_BEFORE`: "goal", "default", "≤", "at most", …) or it is a
 *   runtime's granularity ("1 ms steps").
 * It also checks that every link of the contents points at a heading, and that every repository
 * path the maps name (ARCHITECTURE.md, STORAGE.md, README.md) exists: a moved file moves its mentions.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./imports.ts";

const architecture = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");

const WORD_NUMBER = "\\d+|two|three|four|five|six|seven|eight|nine|ten";

const ALWAYS: RegExp[] = [
  new RegExp(`\\bin the last (?:${WORD_NUMBER})\\b`, "gi"),
  new RegExp(`\\bover (?:${WORD_NUMBER}) runs\\b`, "gi"),
  /\bmeasured\b:?\s*[~≈]?\s*\d/gi,
  /×\s*\(measured/g,
  /\d\.\d+\s*[–-]\s*\d+\.\d+/g,
  /\d(?:\.\d+)?×?\s+here\b/g,
];

/** A figure with a unit that a run measures; allowed only as a goal, a default or a limit. */
const UNLESS_GOAL = /[~≈]?\d[\d,.]*\s?(?:ms\b|kB\b|×)/g;

/** Words that, just before a figure, make it a goal, a default or a limit rather than a measurement. */
const ALLOWED_BEFORE = /(?:goal|default|timeout|deadline|limit|≤|≥|<=|>=|<|>|at most|at least|up to|within)\s*\(?\s*$/i;
/** A figure that describes a runtime's granularity ("1 ms steps"), not a result. */
const ALLOWED_AFTER = /^\s*steps\b/;

/** The per-run measurements in `text`, each with a little context. */
function measurements(text: string): string[] {
  const flat = text.replace(/\s+/g, " ");
  const found: string[] = [];
  const context = (index: number, length: number) => flat.slice(Math.max(0, index - 40), index + length + 20);
  for (const pattern of ALWAYS) for (const m of flat.matchAll(pattern)) found.push(context(m.index, m[0].length));
  for (const m of flat.matchAll(UNLESS_GOAL)) {
    const before = flat.slice(Math.max(0, m.index - 16), m.index);
    const after = flat.slice(m.index + m[0].length, m.index + m[0].length + 8);
    if (!ALLOWED_BEFORE.test(before) && !ALLOWED_AFTER.test(after)) found.push(context(m.index, m[0].length));
  }
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

describe("ARCHITECTURE.md", () => {
  it("holds no per-run measurements (they belong in the bench report)", () => {
    expect(measurements(architecture)).toEqual([]);
  });

  it("the check itself catches the old text and lets goals and limits pass", () => {
    for (const old of [
      "The goal is not met reliably: 1.27–1.53 over runs (1.35, 1.33, 1.28 and 1.53 in the last four).",
      "`ratelimit.vs_peer_ratio` (8 keys, 32 in flight) 3.4–3.6× over two runs (goal ≥ 1.5)",
      "goal ≤ 1.5; 1.30 here: 45 ms vs 34 ms",
      "Measured: 500 concurrent requests, limit 100, one isolate → 1.000",
      "the served script went from 30.9 to 20.4 kB (10.9 to 7.5 kB gzip)",
      "once keys are over their limit, ours answers from memory: about\n1,000× (`ratelimit.vs_peer_ratio_over_limit`)",
      "it was measured 2.1× faster",
      "it is 2.1× (measured)",
    ]) {
      expect(measurements(old), old).not.toEqual([]);
    }
    for (const fine of [
      "`bundle.auth_worker_gzip_kb` misses its goal (≤ 130 kB)",
      "then the store, under `timeoutMs` (default 2000 ms)",
      "workerd's clock moves in 1 ms steps locally",
      "retried ≤ 3× on retryable RPC errors",
      "up to KV's 60 s cache elsewhere; KV allows 1,000 operations per invocation",
      "`live.consumer_vs_account_ratio` (goal ≤ 1.5)",
    ]) {
      expect(measurements(fine), fine).toEqual([]);
    }
  });

  it("every link of the contents points at a heading", () => {
    const headings = new Set([...architecture.matchAll(/^#{2,3} (.+)$/gm)].map(([, text]) => anchor(text!)));
    const contents = architecture.slice(
      architecture.indexOf("## Contents"),
      architecture.indexOf("\n## ", architecture.indexOf("## Contents") + 1),
    );
    const links = [...contents.matchAll(/\]\(#([^)]+)\)/g)].map(([, target]) => target!);
    expect(links.length).toBeGreaterThan(20);
    expect(links.filter((target) => !headings.has(target))).toEqual([]);
    // Every top-level section is in the contents.
    const top = [...architecture.matchAll(/^## (.+)$/gm)]
      .map(([, text]) => anchor(text!))
      .filter((a) => a !== "contents");
    expect(top.filter((a) => !links.includes(a))).toEqual([]);
  });

  it("every repository path the maps name exists", () => {
    const PATH = /(?<![\w./-])((?:client-sdk|durable-objects|workers|test|bench|scripts|tooling)\/[\w./-]*[\w/])/g;
    // Files the tools write on a user's machine, never committed.
    const GENERATED = /\.dev\.vars$|^bench\/results\//;
    const missing: string[] = [];
    for (const doc of ["ARCHITECTURE.md", "STORAGE.md", "README.md"]) {
      const text = readFileSync(join(ROOT, doc), "utf8");
      for (const [, path] of text.matchAll(PATH)) {
        if (/[*{<]/.test(path!) || GENERATED.test(path!)) continue;
        if (!existsSync(join(ROOT, path!))) missing.push(`${doc}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
