/**
 * The project's own wrangler (`node_modules/.bin/wrangler` of the project directory, never a
 * global one): find it, run it with the terminal attached, pass Ctrl-C on, and report its exit
 * status as a number. Never adds arguments or variables beyond what the caller gives.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { CliError } from "./errors.ts";
import { forwardStopSignals } from "./signals.ts";

const WINDOWS = process.platform === "win32";

/** The path of the project's wrangler; `missing_wrangler` when npm install has not run. */
export function findWrangler(projectDir: string): string {
  const bin = join(projectDir, "node_modules", ".bin", WINDOWS ? "wrangler.cmd" : "wrangler");
  if (!existsSync(bin)) {
    throw new CliError("missing_wrangler", `wrangler is not installed in ${projectDir}: run npm install first`);
  }
  return bin;
}

export interface WranglerRun {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** Runs `bin args` until it exits; resolves with its exit code (128 + n when signal n ended it). */
export async function runWrangler(bin: string, args: readonly string[], run: WranglerRun): Promise<number> {
  // A .cmd shim only starts through the shell on Windows; the arguments are ports and URLs, no quoting needed.
  const child = spawn(bin, [...args], { cwd: run.cwd, env: { ...run.env }, stdio: "inherit", shell: WINDOWS });
  const stopForwarding = forwardStopSignals(child);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once("error", (err) => reject(new CliError("start_failed", `could not run ${bin}: ${err.message}`)));
      child.once("exit", (code, signal) => {
        resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
      });
    });
  } finally {
    stopForwarding();
  }
}
