/**
 * @module
 * The package as users get it, for the package test (test/package) and the bundle bench
 * (bench/bundle): build dist/ (`npm run build`'s two steps), `npm pack` the tarball, and install
 * it, not a link, with its peers from the registry into a copy of a fixture project. Commands
 * run in child processes and return their exit code and output; npm runs without the `npm_*`
 * variables of the `npm test` around it, so an install behaves as in a user's shell.
 */
import { execFile } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../dev/index.ts";

export { REPO_ROOT };

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  /** Both streams, for assertion messages. */
  output: string;
}

export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 180_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

/** This process's environment without npm's script variables (a user's shell has none). */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

/** A Node script of the repository (its devDependencies' CLIs among them), run with this Node (24 under npm). */
export function node(script: string, args: readonly string[], cwd: string, timeoutMs?: number): Promise<Ran> {
  return run(process.execPath, [join(REPO_ROOT, script), ...args], {
    cwd,
    env: userEnv({ WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", FORCE_COLOR: "0" }),
    ...(timeoutMs ? { timeoutMs } : {}),
  });
}

export const TSC = "node_modules/typescript/bin/tsc";
export const WRANGLER = "node_modules/wrangler/bin/wrangler.js";

/** Throws with the program's output when it failed. */
export function must(step: string, ran: Ran): Ran {
  if (ran.code !== 0) throw new Error(`${step} failed (exit ${ran.code}):\n${ran.output.slice(-4000)}`);
  return ran;
}

export interface PackedFile {
  path: string;
  size: number;
}

export interface Packed {
  tarball: string;
  files: PackedFile[];
  size: number;
  unpackedSize: number;
}

/** `npm run build` (clean dist/, tsdown), then `npm pack` into `destination`. */
export async function buildAndPack(destination: string): Promise<Packed> {
  must("clean dist/", await node("scripts/clean-dist.mjs", [], REPO_ROOT));
  must("tsdown", await node("node_modules/tsdown/dist/run.mjs", [], REPO_ROOT, 120_000));
  const packed = must(
    "npm pack",
    await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", destination], {
      cwd: REPO_ROOT,
      env: userEnv(),
    }),
  );
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as (Omit<Packed, "tarball"> & {
    filename: string;
  })[];
  if (!info) throw new Error("npm pack printed no package");
  return {
    tarball: join(destination, info.filename),
    files: info.files,
    size: info.size,
    unpackedSize: info.unpackedSize,
  };
}

export const NPM_INSTALL_FLAGS = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"];

/**
 * Copies the fixture project `source` to `destination` and installs the tarball into it with
 * `@cloudflare/workers-types` (npm adds the required peers itself: hono, partyserver, @workos-inc/node).
 */
export async function installFixture(tarball: string, source: string, destination: string): Promise<void> {
  cpSync(source, destination, { recursive: true });
  must(
    `npm install in ${destination}`,
    await run("npm", ["install", ...NPM_INSTALL_FLAGS, tarball, "@cloudflare/workers-types"], {
      cwd: destination,
      env: userEnv(),
    }),
  );
}
