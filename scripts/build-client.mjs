#!/usr/bin/env node
/**
 * Builds the auth worker's browser code with esbuild: workers/auth/account/client/live.ts
 * → <outdir>/account/live.js, plus <outdir>/_headers (Cache-Control: no-cache; Workers Static
 * Assets add the ETag). wrangler.toml serves <outdir> (default dist/client, gitignored) as static
 * assets. Run by `npm run build:client` and before `npm start`. It bundles browser code only and
 * defines nothing from the environment, so no secret can reach the output.
 *
 *   node scripts/build-client.mjs [--outdir <dir>]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");

/** Entry points, and the URL path each is served at (LIVE_SCRIPT_PATH in workers/auth/account/page.ts). */
export const ENTRIES = [{ in: "workers/auth/account/client/live.ts", out: "account/live", path: "/account/live.js" }];

/** Served with the platform's ETag; `no-cache` makes browsers revalidate, so a deploy is picked up at once. */
function headersFile() {
  return `${ENTRIES.map((e) => `${e.path}\n  Cache-Control: no-cache\n  X-Content-Type-Options: nosniff\n`).join("\n")}`;
}

export async function buildClient(outdir = resolve(root, "dist/client")) {
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: ENTRIES.map((e) => ({ in: e.in, out: e.out })),
    outdir,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["es2022"],
    minify: true,
    metafile: true,
    logLevel: "warning",
  });
  writeFileSync(resolve(outdir, "_headers"), headersFile());
  return { outdir, outputs: Object.keys(result.metafile.outputs) };
}

if (import.meta.main ?? process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({ options: { outdir: { type: "string" } } });
  const outdir = values.outdir ? resolve(values.outdir) : undefined;
  const { outdir: written, outputs } = await buildClient(outdir);
  console.log(`gatehouse: built ${outputs.join(", ")} (+ _headers) into ${relative(root, written) || "."}`);
}
