/**
 * Whether a TCP port is free, found by listening on it for a moment: `dev` checks the worker's
 * and the provider's ports before it starts anything, so a taken port is one line instead of
 * wrangler's own error. Opens and closes a listener only; never connects anywhere.
 */
import { createServer } from "node:net";
import { CliError, isAddressInUse } from "./errors.ts";

/** False when something listens on `host:port`; any other failure to listen is `start_failed`. */
export async function isPortFree(port: number, host: string): Promise<boolean> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port, host, exclusive: true }, resolve);
    });
  } catch (err) {
    if (isAddressInUse(err)) return false;
    const message = err instanceof Error ? err.message : String(err);
    throw new CliError("start_failed", `cannot listen on ${host}:${port}: ${message}`);
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return true;
}
