/**
 * Argument parsing for every command: `node:util` parseArgs in strict mode, its errors turned into
 * one usage line (exit 2), and the port check shared by the flags. Parses only; never reads the
 * environment or touches the file system.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { CliError } from "./errors.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

export interface ParsedCommand {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses `args` for `command`; an unknown option or a missing value is a usage error. */
export function parseCommand(command: string, args: readonly string[], options: Options): ParsedCommand {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as ParsedCommand["values"], positionals };
  } catch (err) {
    const message = err instanceof Error ? err.message.split("\n")[0] : String(err);
    throw new CliError("usage", `${command}: ${message} (see gatehouse-workers --help)`);
  }
}

/** A string flag's value, or undefined when it is absent. */
export function stringFlag(parsed: ParsedCommand, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === "string" ? value : undefined;
}

/** A TCP port from a flag or a variable; `allowZero` lets the system pick one. */
export function parsePort(value: string, source: string, allowZero = false): number {
  const port = /^\d{1,5}$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port > 65535 || (port === 0 && !allowZero)) {
    const range = allowZero ? "0-65535" : "1-65535";
    throw new CliError("usage", `${source} must be a port number (${range}), got '${value}'`);
  }
  return port;
}
