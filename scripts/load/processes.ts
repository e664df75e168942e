/**
 * Processes of `npm run load`: `wrangler dev` of one worker on a loopback
 * port (own process group, own dev registry, output kept in a log file) and
 * free-port lookup. It only ever stops the processes it started, by their
 * process-group id, and never listens beyond 127.0.0.1.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
const WRANGLER = join(ROOT, "node_modules/wrangler/bin/wrangler.js");

/** A loopback port nothing listened on a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", ok);
  });
  const address = server.address();
  await new Promise<void>((ok) => server.close(() => ok()));
  if (address === null || typeof address === "string") throw new Error("no free port");
  return address.port;
}

export interface DevOptions {
  /** Label in logs, e.g. "auth". */
  name: string;
  /** wrangler config, relative to the repository root. */
  config: string;
  port: number;
  persistTo: string;
  /** Private dev registry (WRANGLER_REGISTRY_PATH), so other `wrangler dev` runs on this machine are not connected. */
  registry: string;
  /** Where wrangler's output goes. */
  logFile: string;
  /** An env file loaded instead of `.dev.vars` (so a developer's own secrets are never used). */
  envFile?: string;
  vars?: Record<string, string>;
}

export interface DevServer {
  readonly url: string;
  readonly options: DevOptions;
  stop(): Promise<void>;
  /** The last lines of its log, for error messages. */
  tail(lines?: number): string;
}

/** Starts `wrangler dev` and resolves once `readyPath` answers 200. */
export async function startDev(options: DevOptions, readyPath: string, timeoutMs = 90_000): Promise<DevServer> {
  const args = [
    WRANGLER,
    "dev",
    "--config",
    options.config,
    "--ip",
    "127.0.0.1",
    "--port",
    String(options.port),
    "--inspector-port",
    String(await freePort()),
    "--persist-to",
    options.persistTo,
    "--show-interactive-dev-session=false",
  ];
  if (options.envFile) args.push("--env-file", options.envFile);
  for (const [key, value] of Object.entries(options.vars ?? {})) args.push("--var", `${key}:${value}`);
  const log = createWriteStream(options.logFile, { flags: "a" });
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true, // its own process group: stop() ends wrangler and the workerd it started, nothing else
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      WRANGLER_REGISTRY_PATH: options.registry,
      WRANGLER_CI_DISABLE_CONFIG_WATCHING: "true",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      CI: "1",
    },
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<number | null>((ok) => child.once("exit", (code) => ok(code)));
  const url = `http://127.0.0.1:${options.port}`;
  const server: DevServer = {
    url,
    options,
    stop: () => stopGroup(child, exited),
    tail: (lines = 30) => readFileSync(options.logFile, "utf8").split("\n").slice(-lines).join("\n"),
  };
  const deadline = Date.now() + timeoutMs;
  let early: number | null | undefined;
  void exited.then((code) => {
    early = code;
  });
  while (Date.now() < deadline) {
    if (early !== undefined) break;
    try {
      const res = await fetch(`${url}${readyPath}`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return server;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  await server.stop();
  throw new Error(`wrangler dev (${options.name}) did not answer ${readyPath} with 200:\n${server.tail()}`);
}

async function stopGroup(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const group = -child.pid;
  signal(group, "SIGINT");
  const done = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
  if (!done) {
    signal(group, "SIGKILL");
    await exited;
  }
  // workerd may outlive wrangler for a moment; the group id reaches only what this child started.
  signal(group, "SIGKILL");
}

function signal(group: number, name: NodeJS.Signals): void {
  try {
    process.kill(group, name);
  } catch {
    // the group is already gone
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((ok) => setTimeout(ok, ms));
}
