/**
 * Whether a TCP port is free, found by listening on it for a moment: `dev` checks the worker's
 * port before it starts anything, so a taken port is one line instead of wrangler's own error.
 * Opens and closes a listener only; never connects anywhere.
 */
import { createServer } from "node:net";
import { CliError, isAddressInUse } from "./errors.ts";

/** Throws `port_in_use` (with `hint`) when `host:port` cannot be listened on. */
export async function assertPortFree(port: number, host: string, hint: string): Promise<void> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port, host, exclusive: true }, resolve);
    });
  } catch (err) {
    if (isAddressInUse(err)) throw new CliError("port_in_use", `port ${port} is already in use (${hint})`);
    const message = err instanceof Error ? err.message : String(err);
    throw new CliError("start_failed", `cannot listen on ${host}:${port}: ${message}`);
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
