/**
 * Shared helpers of the CLI tests: temp directories that are always removed, a captured
 * in-process context, the executable run as a child process, and free or occupied ports.
 * Test-only; never imported by scripts/cli.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach } from "vitest";
import type { CliContext } from "../../scripts/cli/context.ts";

export const REPO_ROOT = resolve(import.meta.dirname, "../..");
export const MAIN = join(REPO_ROOT, "scripts/cli/main.ts");

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh directory under the system temp directory, removed after the test. */
export function tempDir(): string {
  const dir = makeTempDir();
  cleanups.push(() => removeDir(dir));
  return dir;
}

/** A fresh temp directory the caller removes (with `removeDir`), e.g. one shared by a suite. */
export function makeTempDir(): string {
  return mkdtempSync(join(tmpdir(), "gatehouse-cli-"));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface Captured extends CliContext {
  stdout: string[];
  stderr: string[];
}

/** An in-process context whose output is kept for assertions. */
export function captureContext(cwd: string, nodeVersion = "24.11.0"): Captured {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    cwd,
    env: {},
    nodeVersion,
    stdout,
    stderr,
    out: (line) => stdout.push(line),
    err: (line) => stderr.push(line),
  };
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  /** Resolves with the first stdout match of `pattern`. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<Finished>;
}

/** Starts `node scripts/cli/main.ts …args` (this Node, which strips the types); killed after the test. */
export function startCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Running {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(stdout);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<Finished>((resolveExit) => {
    child.once("close", (code, signal) => resolveExit({ code, signal, stdout, stderr }));
  });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
  });
  return {
    child,
    exited,
    waitFor: (pattern) =>
      new Promise((resolveMatch, reject) => {
        const match = pattern.exec(stdout);
        if (match) return resolveMatch(match);
        waiters.push({ pattern, resolve: resolveMatch });
        exited.then((f) => reject(new Error(`exited (${f.code}) before ${pattern}: ${f.stdout}${f.stderr}`)));
      }),
  };
}

/** Runs the executable to its end. */
export function runCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return startCli(args, options).exited;
}

/** A port nothing listens on (free a moment ago). */
export async function freePort(): Promise<number> {
  const server = await listen(0);
  const port = portOf(server);
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** A port held by a listener on 127.0.0.1 until the test ends. */
export async function occupiedPort(): Promise<number> {
  const server = await listen(0);
  cleanups.push(() => new Promise<void>((done) => server.close(() => done())));
  return portOf(server);
}

function listen(port: number): Promise<Server> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => done(server));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("not a TCP listener");
  return address.port;
}

/** A stack trace line, which the tool must never print. */
export const STACK_LINE = "    at ";

/** Puts `source` where the CLI looks for the project's wrangler (`node_modules/wrangler/bin/wrangler.js`). */
export function installWranglerStandIn(projectDir: string, source: string): void {
  const bin = join(projectDir, "node_modules", "wrangler", "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "wrangler.js"), source);
}
