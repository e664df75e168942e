/**
 * @module
 * Node-side bundle measurement for any worker: bundles it exactly as a
 * deploy would (`wrangler deploy --dry-run`, offline), then gzips the
 * output. It must never deploy or touch the network; it only reads sizes.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import type { SourceMap } from "./composition";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
const WRANGLER = join(ROOT, "node_modules/wrangler/bin/wrangler.js");

/** A worker to bundle: its entry module, a wrangler config naming one, or a project folder (its own wrangler config and node_modules). */
export type BundleTarget = { entry: string } | { config: string } | { dir: string };

export interface BundleSize {
  /** gzip size of the bundled JavaScript, in kB (1000 bytes), 2 decimals. */
  gzipKb: number;
  /** Uncompressed size in bytes. */
  bytes: number;
  /** Source modules in the bundle, as esbuild names them (one `// path` comment each). */
  modules: string[];
}

/** A measured bundle with its JavaScript and source map, for `compositionOf` (bench/bundle/composition.ts). */
export interface Bundle extends BundleSize {
  code: string;
  /** The source map wrangler writes beside the bundle (by default from wrangler 4.150), if any. */
  map: SourceMap | null;
}

export interface BundleOptions {
  /** Overrides the config's `minify` (`--minify` / `--no-minify`); unset: as the config says. */
  minify?: boolean;
}

/**
 * Bundles `target` with wrangler and measures it.
 *
 * @example
 * ```ts
 * const { gzipKb, modules } = await gzipBundleKb({ config: "bench/bundle/fixtures/html-only/wrangler.toml" });
 * const other = await gzipBundleKb({ entry: "workers/auth/worker.ts" });
 * const installed = await gzipBundleKb({ dir: "/tmp/…/auth-worker" }); // a project with the tarball installed
 * ```
 */
export async function gzipBundleKb(target: BundleTarget, options: BundleOptions = {}): Promise<BundleSize> {
  const { code: _code, map: _map, ...size } = await bundleOf(target, options);
  return size;
}

/** `gzipBundleKb`, with the bundled JavaScript itself and its source map. */
export async function bundleOf(target: BundleTarget, options: BundleOptions = {}): Promise<Bundle> {
  const dir = await mkdtemp(join(tmpdir(), "gatehouse-bundle-"));
  try {
    let config: string | undefined;
    let cwd = ROOT;
    if ("dir" in target) {
      cwd = target.dir;
    } else if ("config" in target) {
      config = resolve(ROOT, target.config);
    } else {
      config = join(dir, "wrangler.toml");
      const main = JSON.stringify(resolve(ROOT, target.entry));
      await writeFile(
        config,
        `name = "bundle-size"\nmain = ${main}\ncompatibility_date = "2026-11-01"\ncompatibility_flags = ["nodejs_compat"]\nsend_metrics = false\n`,
      );
    }
    const outdir = join(dir, "out");
    const args = [WRANGLER, "deploy", "--dry-run", "--outdir", outdir, ...(config ? ["--config", config] : [])];
    if (options.minify !== undefined) args.push(options.minify ? "--minify" : "--no-minify");
    await run(process.execPath, args, {
      cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
    const output = await readdir(outdir);
    const files = output.filter((f) => /\.(m?js|cjs)$/.test(f));
    if (files.length === 0) throw new Error(`wrangler produced no JavaScript in ${outdir}`);
    const code = Buffer.concat(await Promise.all(files.map((f) => readFile(join(outdir, f)))));
    const text = code.toString("utf8");
    const modules = [...text.matchAll(/^\/\/ (\S+\.[cm]?[jt]sx?)$/gm)].map((m) => m[1]!);
    // One worker, one module: its map is `<module>.map` (a bundle of several files keeps none).
    const mapFile = files.length === 1 && output.includes(`${files[0]}.map`) ? `${files[0]}.map` : null;
    const map = mapFile ? (JSON.parse(await readFile(join(outdir, mapFile), "utf8")) as SourceMap) : null;
    return {
      gzipKb: Math.round(gzipSync(code).byteLength / 10) / 100,
      bytes: code.byteLength,
      modules,
      code: text,
      map,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The npm packages a bundle pulled in (from its module paths). */
export function packagesOf(modules: readonly string[]): string[] {
  const names = new Set<string>();
  for (const path of modules) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    if (match) names.add(match[1]!);
  }
  return [...names].sort();
}
