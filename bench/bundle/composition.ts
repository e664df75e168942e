#!/usr/bin/env node
/**
 * What a worker's deploy bundle is made of: bundles it with `wrangler deploy
 * --dry-run` (offline, never deploys) and prints, per npm package or source
 * folder, its raw size, its gzip size on its own and its approximate share of
 * the gzip total, heaviest first; a minified bundle (`minify`, or `--minify`)
 * is split by its source map. bench-bundle logs the same table for the auth
 * worker (`bundle.auth_worker_gzip_kb`).
 *   node bench/bundle/composition.ts [wrangler.toml | wrangler.jsonc] [--minify | --no-minify] [--alias pkg:path]…
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";

const ROOT = resolve(import.meta.dirname, "../..");
const WRANGLER = join(ROOT, "node_modules/wrangler/bin/wrangler.js");

export interface Part {
  name: string;
  bytes: number;
  gzipKb: number;
  /** This part's gzip size over the sum of every part's (each gzipped on its own): its approximate share of the total. */
  gzipShare: number;
  modules: number;
}

/** The package shipped from this repository: installed in a fixture, its modules are split by folder like the sources. */
const OWN_PACKAGE = "gatehouse-workers";

/**
 * The part a bundled module belongs to: its npm package (the innermost `node_modules/<package>`, named after
 * the package that nests it: `@workos-inc/node > jose`), or, for our own code (the repository's sources, or
 * this package's dist/ when installed), its first three folders (`workers/auth/account`, …).
 */
export function partOf(module: string): string {
  const installed = /^.*node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(module);
  if (installed && installed[1] !== OWN_PACKAGE) {
    const nesting = [...module.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((m) => m[1]!);
    return nesting.join(" > ");
  }
  const path = installed ? installed[2]!.replace(/^dist\//, "") : module.replace(/^(\.\.\/)+/, "");
  const folders = path.split("/").slice(0, -1);
  return folders.length > 0 ? folders.slice(0, 3).join("/") : path;
}

export interface Composition {
  totalGzipKb: number;
  /** Heaviest (gzip) first. */
  parts: Part[];
}

const gzipKb = (text: string) => Math.round(gzipSync(text).byteLength / 10) / 100;

/** Parts from each part's text and module count: gzip sizes and shares, heaviest first. */
function partsOf(code: string, groups: Map<string, { text: string; modules: number }>): Composition {
  const parts = [...groups].map(([name, g]) => ({
    name,
    bytes: Buffer.byteLength(g.text),
    gzipKb: gzipKb(g.text),
    gzipShare: 0,
    modules: g.modules,
  }));
  const gzipSum = parts.reduce((sum, p) => sum + p.gzipKb, 0);
  for (const p of parts) p.gzipShare = gzipSum > 0 ? p.gzipKb / gzipSum : 0;
  return { totalGzipKb: gzipKb(code), parts: parts.sort((a, b) => b.gzipKb - a.gzipKb) };
}

/** Groups bundled modules (esbuild's `// path` comments) by npm package, or by the first three folders of our own. */
export function composition(code: string): Composition {
  const groups = new Map<string, { text: string[]; modules: number }>();
  let current = "(runtime prelude)";
  for (const line of code.split("\n")) {
    const module = /^\/\/ (\S+\.[cm]?[jt]sx?)$/.exec(line)?.[1];
    if (module) current = partOf(module);
    let group = groups.get(current);
    if (!group) {
      group = { text: [], modules: 0 };
      groups.set(current, group);
    }
    if (module) group.modules++;
    group.text.push(line);
  }
  return partsOf(
    code,
    new Map([...groups].map(([name, g]) => [name, { text: g.text.join("\n"), modules: g.modules }])),
  );
}

/** A version-3 source map, as esbuild writes it beside a bundle (`upload_source_maps`). */
export interface SourceMap {
  sources: string[];
  mappings: string;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** The segments of one generated line: [generated column, source index (absent: no source)]. */
function decodeLine(line: string, state: { source: number }): [number, number | undefined][] {
  const segments: [number, number | undefined][] = [];
  let column = 0;
  for (const segment of line.split(",")) {
    if (segment === "") continue;
    const fields: number[] = [];
    let value = 0;
    let shift = 0;
    for (const char of segment) {
      const digit = BASE64.indexOf(char);
      value += (digit & 31) << shift;
      if (digit & 32) {
        shift += 5;
      } else {
        fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
        value = 0;
        shift = 0;
      }
    }
    column += fields[0] ?? 0;
    if (fields.length >= 4) state.source += fields[1]!;
    segments.push([column, fields.length >= 4 ? state.source : undefined]);
  }
  return segments;
}

/**
 * `composition` for a minified bundle, which has no module comments: each stretch of generated code
 * belongs to the source its source map names for it (a stretch without one to the stretch before),
 * grouped with `partOf`. `modules` counts the sources of a part that have code in the bundle.
 */
export function compositionFromSourceMap(code: string, map: SourceMap): Composition {
  const groups = new Map<string, { text: string[]; sources: Set<number> }>();
  const add = (source: number | undefined, text: string) => {
    const name = source === undefined ? "(runtime prelude)" : partOf(map.sources[source]!);
    let group = groups.get(name);
    if (!group) {
      group = { text: [], sources: new Set() };
      groups.set(name, group);
    }
    if (source !== undefined) group.sources.add(source);
    group.text.push(text);
  };
  const lines = code.split("\n");
  const mapped = map.mappings.split(";");
  const state = { source: 0 };
  let current: number | undefined;
  for (const [index, line] of lines.entries()) {
    const segments = decodeLine(mapped[index] ?? "", state);
    let start = 0;
    for (const [column, source] of segments) {
      if (column > start) add(current, line.slice(start, column));
      start = Math.max(start, column);
      if (source !== undefined) current = source;
    }
    add(current, `${line.slice(start)}\n`);
  }
  return partsOf(
    code,
    new Map([...groups].map(([name, g]) => [name, { text: g.text.join(""), modules: g.sources.size }])),
  );
}

/** A bundle's parts: by its module comments, or, minified (none left), by its source map. */
export function compositionOf(code: string, map: SourceMap | null): Composition {
  if (/^\/\/ \S+\.[cm]?[jt]sx?$/m.test(code) || !map) return composition(code);
  return compositionFromSourceMap(code, map);
}

/** Raw bytes of `pkg`'s modules in a bundle's parts (0 when it has none). */
export function bytesOf(parts: readonly Part[], pkg: string): number {
  return parts.find((p) => p.name === pkg)?.bytes ?? 0;
}

/** The heaviest parts as table lines: raw bytes, gzip kB on its own and its approximate share of the gzip total. */
export function formatParts(parts: readonly Part[], limit = parts.length): string[] {
  const lines = [
    `${"part".padEnd(40)} ${"raw B".padStart(9)} ${"gzip kB".padStart(8)} ${"share".padStart(6)}  modules`,
  ];
  for (const p of parts.slice(0, limit)) {
    lines.push(
      `${p.name.padEnd(40)} ${String(p.bytes).padStart(9)} ${p.gzipKb.toFixed(2).padStart(8)} ${`${(p.gzipShare * 100).toFixed(1)}%`.padStart(6)}  ${p.modules}`,
    );
  }
  return lines;
}

async function main(): Promise<void> {
  let config = "wrangler.toml";
  const aliases: string[] = [];
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--alias") aliases.push("--alias", args[++i] ?? "");
    else if (args[i] === "--minify" || args[i] === "--no-minify") aliases.push(args[i]!);
    else config = args[i]!;
  }
  const dir = await mkdtemp(join(tmpdir(), "gatehouse-composition-"));
  try {
    await promisify(execFile)(
      process.execPath,
      [WRANGLER, "deploy", "--dry-run", "--outdir", dir, "--config", resolve(ROOT, config), ...aliases],
      { cwd: ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" }, maxBuffer: 16 << 20 },
    );
    // Named after the config's `main` (worker.js, index.js, …), with its source map beside it.
    const output = await readdir(dir);
    const files = output.filter((f) => /\.(m?js|cjs)$/.test(f));
    const code = (await Promise.all(files.map((f) => readFile(join(dir, f), "utf8")))).join("\n");
    const mapFile = files.length === 1 && output.includes(`${files[0]}.map`) ? `${files[0]}.map` : null;
    const map = mapFile ? (JSON.parse(await readFile(join(dir, mapFile), "utf8")) as SourceMap) : null;
    const { totalGzipKb, parts } = compositionOf(code, map);
    console.log(`${config}${aliases.length ? ` (${aliases.join(" ")})` : ""}: ${totalGzipKb} kB gzip in all`);
    for (const line of formatParts(parts)) console.log(line);
    console.log("(each part gzipped on its own: parts do not add up to the total exactly)");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
