/**
 * The dispatcher of `gatehouse-workers`: picks the command, loads its module on demand (so `init`
 * on an old Node never loads the identity provider), and turns every failure into
 * `gatehouse-workers: <line>` on stderr plus an exit code. Returns the code; never exits itself.
 */
import type { CliContext } from "./context.ts";
import { CliError, errorLines } from "./errors.ts";
import { findOwnPackage } from "./package-info.ts";
import { USAGE } from "./usage.ts";

type Command = (args: readonly string[], ctx: CliContext) => Promise<number>;

const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  init: async () => (await import("./init.ts")).runInit,
  dev: async () => (await import("./dev.ts")).runDev,
  "dev-idp": async () => (await import("./dev-idp.ts")).runDevIdp,
};

/** Runs `gatehouse-workers <argv…>`; resolves with the process's exit code. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  const [first, ...rest] = argv;
  try {
    if (first === undefined || first === "--help" || first === "-h" || first === "help") {
      ctx.out(USAGE);
      return 0;
    }
    if (first === "--version" || first === "-v") {
      ctx.out(findOwnPackage().version);
      return 0;
    }
    const load = Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
    if (!load) {
      ctx.err(USAGE);
      throw new CliError("unknown_command", `unknown command '${first}'`);
    }
    return await (await load())(rest, ctx);
  } catch (err) {
    for (const line of errorLines(err)) ctx.err(`gatehouse-workers: ${line}`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}
