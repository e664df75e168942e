/**
 * SIGINT and SIGTERM for the long-running commands: wait for one (dev-idp), or pass each to a
 * child until it exits (dev). Listeners are added when called and removed when done, never at
 * import time, so a second Ctrl-C after the first has been handled still ends the process.
 * Losing the parent counts as SIGTERM: `npm start` stopped with SIGTERM (a process manager,
 * `timeout`) ends npm's shell but not its child, which would otherwise keep wrangler running.
 */
import type { ChildProcess } from "node:child_process";

const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Calls `onStop` for every SIGINT and SIGTERM, and once with SIGTERM if the parent process goes away; returns the function that stops listening. */
function onStopSignals(onStop: (signal: StopSignal) => void, parentPollMs = 1_000): () => void {
  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = () => onStop(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  const parent = process.ppid;
  const orphaned = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(orphaned);
      onStop("SIGTERM");
    }
  }, parentPollMs);
  orphaned.unref();
  return () => {
    clearInterval(orphaned);
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}

/** Resolves with the first SIGINT or SIGTERM (or the parent's exit, as SIGTERM), then stops listening. */
export function waitForStopSignal(): Promise<StopSignal> {
  return new Promise((resolve) => {
    const stop = onStopSignals((signal) => {
      stop();
      resolve(signal);
    });
  });
}

/** Sends every SIGINT and SIGTERM this process gets (and the parent's exit, as SIGTERM) on to `child`; returns the function that stops it. */
export function forwardStopSignals(child: ChildProcess): () => void {
  return onStopSignals((signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
