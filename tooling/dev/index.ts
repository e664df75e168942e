/**
 * @module
 * `wrangler dev` for the repository's Node-side harnesses (browser tests, `npm run load`, the
 * package test): one worker per process, in its own process group (stopping it ends the workerd
 * underneath, and nothing else), a private dev registry, its own `--persist-to` folder, output in
 * a log file whose tail explains a failure, and only loopback ports. Values reach the worker from
 * an env file or `--var`, never from a developer's `.dev.vars` or this process's environment.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join, resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";

export const REPO_ROOT = resolve(import.meta.dirname, "../..");
const WRANGLER = join(REPO_ROOT, "node_modules/wrangler/bin/wrangler.js");
export const LOOPBACK = "127.0.0.1";

export interface WranglerDevOptions {
  /** Label in errors and logs, e.g. "auth". */
  name: string;
  /** The project folder wrangler runs in (its config and `node_modules` resolve from here). */
  cwd: string;
  /** `--config`, relative to `cwd`; default: wrangler's own lookup. */
  config?: string;
  port: number;
  persistTo: string;
  /** `WRANGLER_REGISTRY_PATH`: workers started with the same one find each other's service bindings. */
  registry: string;
  logFile: string;
  /** Variables from this file instead of `.dev.vars` (secrets stay off the command line). */
  envFile?: string;
  vars?: Readonly<Record<string, string>>;
}

export interface WranglerDev {
  readonly name: string;
  readonly url: string;
  readonly logFile: string;
  /** True once the process has exited. */
  readonly exited: boolean;
  stop(): Promise<void>;
  /** The last lines of its log. */
  tail(lines?: number): string;
}

/** Every group started and not yet stopped: killed if this Node process exits first. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) killGroup(child, "SIGKILL");
});

/** Spawns `wrangler dev`; wait for it with `waitUntilReady`. */
export async function startWranglerDev(options: WranglerDevOptions): Promise<WranglerDev> {
  const args = [
    WRANGLER,
    "dev",
    ...(options.config ? ["--config", options.config] : []),
    "--ip",
    LOOPBACK,
    "--port",
    String(options.port),
    "--inspector-port",
    String(await freePort()),
    "--persist-to",
    options.persistTo,
    "--show-interactive-dev-session=false",
    ...(options.envFile ? ["--env-file", options.envFile] : []),
    ...Object.entries(options.vars ?? {}).flatMap(([key, value]) => ["--var", `${key}:${value}`]),
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The repository's pinned Node first, as `npm run` does (a `[build]` command runs `node`).
    PATH: [join(REPO_ROOT, "node_modules/.bin"), process.env.PATH ?? ""].join(delimiter),
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_REGISTRY_PATH: options.registry,
    WRANGLER_LOG_PATH: `${options.logFile}.d`,
    WRANGLER_CI_DISABLE_CONFIG_WATCHING: "true",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: "true",
    FORCE_COLOR: "0",
  };
  // Only the env file's and --var values reach the worker.
  delete env.CLOUDFLARE_INCLUDE_PROCESS_ENV;
  const log = createWriteStream(options.logFile, { flags: "a" });
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env,
    detached: true, // a new process group: `kill(-pid)` reaches workerd too
    stdio: ["ignore", "pipe", "pipe"], // no TTY and no stdin: wrangler never prompts
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  running.add(child);
  child.once("exit", () => running.delete(child));
  return {
    name: options.name,
    url: `http://${LOOPBACK}:${options.port}`,
    logFile: options.logFile,
    get exited() {
      return child.exitCode !== null || child.signalCode !== null;
    },
    stop: () => stopGroup(child),
    tail: (lines = 30) => logTail(options.logFile, lines),
  };
}

/** Polls `probe` until it answers true; fails with the log's tail if the process exits or time runs out. */
export async function waitUntilReady(
  dev: WranglerDev,
  probe: () => Promise<boolean>,
  what: string,
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (dev.exited) throw new Error(`${dev.name} exited before ${what}.\n${dev.tail()}`);
    if (await probe().catch(() => false)) return;
    await delay(250);
  }
  throw new Error(`${dev.name}: ${what} did not happen within ${timeoutMs / 1000} s.\n${dev.tail()}`);
}

/** True when `url` answers 200 within two seconds (the body is read, so the socket is released). */
export async function answers200(url: string, init: RequestInit = {}): Promise<boolean> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(2_000) });
  await res.arrayBuffer();
  return res.status === 200;
}

/** Writes `KEY=value` lines for `--env-file`, readable by this user only. */
export function writeEnvFile(path: string, vars: Readonly<Record<string, string>>): void {
  const lines = Object.entries(vars).map(([key, value]) => `${key}=${value}`);
  writeFileSync(path, `${lines.join("\n")}\n`, { mode: 0o600 });
}

/** A loopback port nothing listened on a moment ago (the kernel's pick). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(0, LOOPBACK, ok);
  });
  const address = server.address();
  await new Promise<void>((ok) => server.close(() => ok()));
  if (address === null || typeof address === "string") throw new Error("no free port");
  return address.port;
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  killGroup(child, "SIGTERM");
  const done = await Promise.race([exited.then(() => true), delay(10_000).then(() => false)]);
  if (!done) {
    killGroup(child, "SIGKILL");
    await Promise.race([exited, delay(2_000)]);
  }
  // workerd may outlive its wrangler parent for a moment: make sure the group is gone.
  killGroup(child, "SIGKILL");
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group has already exited.
  }
}

function logTail(path: string, lines: number): string {
  try {
    const text = readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    return `--- last lines of ${path} ---\n${text}`;
  } catch {
    return `(no log at ${path})`;
  }
}
