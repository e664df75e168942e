/**
 * @module gatehouse-workers/hyperdrive
 * `postgresDriver`: the Postgres wire driver of `PooledDbClient`, postgres.js
 * over Hyperdrive's own socket. Its own subpath, so only a worker that imports
 * it bundles postgres.js (an optional peer dependency); the host needs the
 * `nodejs_compat` flag. One short connection per query: Hyperdrive pools the
 * real connections, and a Worker may not share sockets across requests. Errors
 * carry the SQLSTATE and the server's message, never the connection string or
 * its credentials.
 */
import postgres, { type Options, type Sql } from "postgres";
import type { BindingError } from "../../errors";
import type { PooledDbDriver, PooledDbRow } from "..";
import { connectionFailed, queryFailed } from "../errors";
import { PostgresSocket } from "./socket";

export type { PooledDbDriver, PooledDbRow } from "..";

/**
 * @example
 * ```ts
 * import { PlatformServiceProvider, PooledDbClient } from "gatehouse-workers/bindings";
 * import { postgresDriver } from "gatehouse-workers/hyperdrive";
 *
 * new PooledDbClient(env.HYPERDRIVE, { driver: postgresDriver });
 * // or, for every Hyperdrive binding the registration detects:
 * new PlatformServiceProvider({ pooledDbDriver: postgresDriver });
 * ```
 */
export const postgresDriver: PooledDbDriver = {
  async query(hyperdrive, sql, params) {
    // `socket` is a postgres.js option its typings omit: a factory for the connection's socket.
    const options: Options<Record<string, never>> & { socket: () => unknown } = {
      // Hyperdrive's own socket (the same as connecting to its host and port); TLS to the origin is Hyperdrive's job.
      socket: () => new PostgresSocket(hyperdrive.connect()),
      ssl: false,
      max: 1,
      prepare: false, // unnamed statements: nothing to clean up on a pooled connection
      fetch_types: false, // no extra round-trip for array type OIDs
      connect_timeout: 10,
      onnotice: () => {},
    };
    const client: Sql = postgres(hyperdrive.connectionString, options);
    try {
      const rows = await client.unsafe<PooledDbRow[]>(sql, params as never[]);
      return Array.from(rows);
    } catch (err) {
      throw toBindingError(err, hyperdrive);
    } finally {
      await client.end({ timeout: 5 }).catch(() => {});
    }
  },
};

function toBindingError(err: unknown, hyperdrive: Hyperdrive): BindingError {
  if (err instanceof Error && err.name === "PostgresError" && typeof (err as { code?: unknown }).code === "string") {
    return queryFailed((err as Error & { code: string }).code, err.message, hyperdrive);
  }
  return connectionFailed(err, hyperdrive);
}
