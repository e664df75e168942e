/**
 * The one error class of the command-line tool: a literal code, the exit status it maps to, and
 * one line (or one line per problem) to print after `gatehouse-workers: `. Whatever else is thrown
 * is reported by its message alone; a stack trace never reaches the terminal.
 */

export type CliErrorCode =
  | "usage"
  | "unknown_command"
  | "not_empty"
  | "would_overwrite"
  | "invalid_name"
  | "invalid_config"
  | "auth_project_not_found"
  | "missing_dev_vars"
  | "missing_wrangler"
  | "port_in_use"
  | "start_failed"
  | "package_not_found";

/** Usage mistakes exit 2 (like most Unix tools); everything else exits 1. */
const USAGE_CODES: ReadonlySet<CliErrorCode> = new Set(["usage", "unknown_command"]);

export class CliError extends Error {
  override name = "CliError";
  readonly code: CliErrorCode;
  /** Printed one per line, each prefixed `gatehouse-workers: `. */
  readonly lines: readonly string[];

  constructor(code: CliErrorCode, message: string | readonly string[]) {
    const lines = typeof message === "string" ? [message] : [...message];
    super(lines.join("\n"));
    this.code = code;
    this.lines = lines;
  }

  get exitCode(): 1 | 2 {
    return USAGE_CODES.has(this.code) ? 2 : 1;
  }
}

/** The lines to print for anything thrown: a CliError's own lines, else the message alone. */
export function errorLines(err: unknown): readonly string[] {
  if (err instanceof CliError) return err.lines;
  const message = err instanceof Error ? err.message : String(err);
  return [`unexpected error: ${message.split("\n")[0]}`];
}

/** Node's "address already in use" error, from `listen`. */
export function isAddressInUse(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "EADDRINUSE";
}
