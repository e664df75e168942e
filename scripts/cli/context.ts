/**
 * What a command may touch of its process: the working directory, the environment, the Node
 * version and two line writers. Commands take it as an argument so tests run them in-process
 * with a temp directory and captured output; nothing here runs at import time.
 */

export interface CliContext {
  /** The directory relative paths (`init <dir>`, `.dev.vars`) resolve against. */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** `process.versions.node` of the Node running the tool, e.g. `20.19.0`. */
  nodeVersion: string;
  out(line: string): void;
  err(line: string): void;
  /**
   * How the person runs `dev`, for the hints it prints (`<devCommand> --port 9000`): `npm start --`
   * in this repository (scripts/start.mjs). Default `gatehouse-workers dev`.
   */
  devCommand?: string;
}

/**
 * The context of the running process. A closed pipe (`gatehouse-workers dev-idp | head`) makes
 * writes fail quietly instead of crashing the tool with an EPIPE stack trace.
 */
export function processContext(): CliContext {
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
  return {
    cwd: process.cwd(),
    env: process.env,
    nodeVersion: process.versions.node,
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  };
}
