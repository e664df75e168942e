#!/usr/bin/env node
/**
 * What a worker's deploy bundle is made of: bundles it with `wrangler deploy
 * --dry-run` (offline, never deploys) and prints, per npm package or source
 * folder, its raw size and its gzip size on its own, heaviest first.
 *   node bench/bundle/composition.ts [wrangler.toml] [--alias pkg:path]…
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
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
  modules: number;
}

/** Groups bundled modules (esbuild's `// path` comments) by npm package, or by the first two folders of our own. */
export function composition(code: string): { totalGzipKb: number; parts: Part[] } {
  const groups = new Map<string, { text: string[]; modules: number }>();
  let current = "(runtime prelude)";
  for (const line of code.split("\n")) {
    const module = /^\/\/ (\S+\.[cm]?[jt]sx?)$/.exec(line)?.[1];
    if (module) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module)?.[1];
      current =
        pkg ??
        module
          .replace(/^(\.\.\/)+/, "")
          .split("/")
          .slice(0, 2)
          .join("/");
    }
    let group = groups.get(current);
    if (!group) {
      group = { text: [], modules: 0 };
      groups.set(current, group);
    }
    if (module) group.modules++;
    group.text.push(line);
  }
  const kb = (text: string) => Math.round(gzipSync(text).byteLength / 10) / 100;
  const parts = [...groups].map(([name, g]) => {
    const text = g.text.join("\n");
    return { name, bytes: Buffer.byteLength(text), gzipKb: kb(text), modules: g.modules };
  });
  return { totalGzipKb: kb(code), parts: parts.sort((a, b) => b.gzipKb - a.gzipKb) };
}

async function main(): Promise<void> {
  let config = "wrangler.toml";
  const aliases: string[] = [];
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--alias") aliases.push("--alias", args[++i] ?? "");
    else config = args[i]!;
  }
  const dir = await mkdtemp(join(tmpdir(), "gatehouse-composition-"));
  try {
    await promisify(execFile)(
      process.execPath,
      [WRANGLER, "deploy", "--dry-run", "--outdir", dir, "--config", resolve(ROOT, config), ...aliases],
      { cwd: ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" }, maxBuffer: 16 << 20 },
    );
    const { totalGzipKb, parts } = composition(await readFile(join(dir, "worker.js"), "utf8"));
    console.log(`${config}${aliases.length ? ` (${aliases.join(" ")})` : ""}: ${totalGzipKb} kB gzip in all`);
    console.log(`${"part".padEnd(40)} ${"raw B".padStart(9)} ${"gzip kB".padStart(8)}  modules`);
    for (const p of parts) {
      console.log(
        `${p.name.padEnd(40)} ${String(p.bytes).padStart(9)} ${p.gzipKb.toFixed(2).padStart(8)}  ${p.modules}`,
      );
    }
    console.log("(each part gzipped on its own: parts do not add up to the total exactly)");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
