/**
 * The project's own wrangler (`node_modules/wrangler` of the project directory, never a
 * global one): find it, run it with the terminal attached, pass Ctrl-C on, and report its exit
 * status as a number. Never adds arguments or variables beyond what the caller gives.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { CliError } from "./errors.ts";
import { forwardStopSignals } from "./signals.ts";

/**
 * The project's wrangler entry script (`node_modules/wrangler/bin/wrangler.js`); `missing_wrangler`
 * when npm install has not run. Run with this Node and no shell, so no argument is ever parsed by one.
 */
export function findWrangler(projectDir: string): string {
  const bin = join(projectDir, "node_modules", "wrangler", "bin", "wrangler.js");
  if (!existsSync(bin)) {
    throw new CliError("missing_wrangler", `wrangler is not installed in ${projectDir}: run npm install first`);
  }
  return bin;
}

export interface WranglerRun {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Runs `node <script> args` until it exits; resolves with its exit code (128 + n when signal n
 * ended it). Wrangler gets its own process group, so a Ctrl-C reaches it once, from us: the
 * terminal's signal stops at this process, which forwards it (wrangler reads a second one as
 * "quit now").
 */
export async function runWrangler(script: string, args: readonly string[], run: WranglerRun): Promise<number> {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: run.cwd,
    env: { ...run.env },
    stdio: "inherit",
    detached: process.platform !== "win32",
  });
  const stopForwarding = forwardStopSignals(child);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once("error", (err) => reject(new CliError("start_failed", `could not run ${script}: ${err.message}`)));
      child.once("exit", (code, signal) => {
        resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
      });
    });
  } finally {
    stopForwarding();
  }
}
