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
export async function gzipBundleKb(target: BundleTarget): Promise<BundleSize> {
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
    await run(process.execPath, args, {
      cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
    const files = (await readdir(outdir)).filter((f) => /\.(m?js|cjs)$/.test(f));
    if (files.length === 0) throw new Error(`wrangler produced no JavaScript in ${outdir}`);
    const code = Buffer.concat(await Promise.all(files.map((f) => readFile(join(outdir, f)))));
    const modules = [...code.toString("utf8").matchAll(/^\/\/ (\S+\.[cm]?[jt]sx?)$/gm)].map((m) => m[1]!);
    return { gzipKb: Math.round(gzipSync(code).byteLength / 10) / 100, bytes: code.byteLength, modules };
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
