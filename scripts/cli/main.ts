#!/usr/bin/env node
/**
 * The `gatehouse-workers` executable (built to dist/cli.js, the package's `bin`): runs the command
 * line against the real process and exits with its code. The only module of the tool that does
 * anything at import time; everything it does is in cli.ts.
 */
import { runCli } from "./cli.ts";
import { processContext } from "./context.ts";

const code = await runCli(process.argv.slice(2), processContext());
process.exitCode = code;
// Normally nothing is left and Node exits now; if a handle lingers (a half-closed socket), exit anyway.
setTimeout(() => process.exit(code), 1_000).unref();
