/**
 * Child processes of the browser tests: `wrangler dev` runs in its own process group (it starts
 * workerd and esbuild underneath), so stopping it kills the whole group, never a process by name.
 * Output goes to a log file, whose tail is quoted when a process dies or never becomes ready.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";

export interface Managed {
  readonly name: string;
  readonly logPath: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Every group started and not yet stopped: killed synchronously if the Node process exits first. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) killGroup(child, "SIGKILL");
});

export function startProcess(
  name: string,
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; logPath: string },
): Managed {
  const log = createWriteStream(options.logPath);
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true, // a new process group: `kill(-pid)` reaches workerd too
    stdio: ["ignore", "pipe", "pipe"], // no TTY and no stdin: wrangler never prompts
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  running.add(child);
  child.once("exit", () => running.delete(child));
  return {
    name,
    logPath: options.logPath,
    child,
    stop: () => stopGroup(child),
  };
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  killGroup(child, "SIGTERM");
  const done = await Promise.race([exited.then(() => true), delay(5_000).then(() => false)]);
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

/** Polls `probe` until it returns true; fails with the process's log tail if it exits or time runs out. */
export async function waitUntilReady(
  proc: Managed,
  probe: () => Promise<boolean>,
  what: string,
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
      throw new Error(`${proc.name} exited before ${what} (code ${proc.child.exitCode}).\n${logTail(proc)}`);
    }
    if (await probe().catch(() => false)) return;
    await delay(250);
  }
  throw new Error(`${proc.name}: ${what} did not happen within ${timeoutMs / 1000} s.\n${logTail(proc)}`);
}

export function logTail(proc: Managed, lines = 30): string {
  try {
    const text = readFileSync(proc.logPath, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    return `--- last lines of ${proc.logPath} ---\n${text}`;
  } catch {
    return `(no log at ${proc.logPath})`;
  }
}
