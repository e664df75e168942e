/**
 * @module
 * `PooledDbClient`: parameterized queries on an external Postgres database
 * through a Hyperdrive binding, with postgres.js (loaded on first query, so
 * workers that never query do not evaluate it). One short connection per
 * query: Hyperdrive pools the real connections, and a Worker may not share
 * sockets across requests. Errors carry the SQLSTATE and the server's message,
 * never the connection string or its credentials.
 */
import type { Options, Sql } from "postgres";
import { BindingError } from "../errors";

/** A row as postgres.js parses it: int8 and numeric arrive as strings, json as values. */
export type PooledDbRow = Record<string, unknown>;

/**
 * @example
 * ```ts
 * const pg = new PooledDbClient(env.HYPERDRIVE);
 * const { results } = await pg.query("SELECT id, email FROM users WHERE id = $1", [userId]);
 * ```
 */
export class PooledDbClient {
  readonly #hyperdrive: Hyperdrive;

  constructor(hyperdrive: Hyperdrive) {
    this.#hyperdrive = hyperdrive;
  }

  /** The underlying binding. */
  get raw(): Hyperdrive {
    return this.#hyperdrive;
  }

  /**
   * Runs `sql` with `$1…$n` bound to `params` and returns the rows. A Postgres
   * error rejects with `BindingError("query_failed")` whose `sqlState` is the
   * SQLSTATE; an unreachable database with `BindingError("connection_failed")`.
   */
  async query<T extends PooledDbRow = PooledDbRow>(sql: string, params: unknown[] = []): Promise<{ results: T[] }> {
    if (typeof sql !== "string" || sql.trim() === "") {
      throw new BindingError("invalid_argument", { message: "PooledDbClient.query: sql must be a non-empty string" });
    }
    if (!Array.isArray(params)) {
      throw new BindingError("invalid_argument", { message: "PooledDbClient.query: params must be an array" });
    }
    const [{ default: postgres }, { PostgresSocket }] = await Promise.all([import("postgres"), import("./socket")]);
    const hyperdrive = this.#hyperdrive;
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
      const rows = await client.unsafe<T[]>(sql, params as never[]);
      return { results: Array.from(rows) };
    } catch (err) {
      throw this.#toBindingError(err);
    } finally {
      await client.end({ timeout: 5 }).catch(() => {});
    }
  }

  #toBindingError(err: unknown): BindingError {
    if (err instanceof Error && err.name === "PostgresError" && typeof (err as { code?: unknown }).code === "string") {
      const code = (err as Error & { code: string }).code;
      const message = this.#redact(err.message);
      return new BindingError("query_failed", {
        message: `Postgres error ${code}: ${message}`,
        sqlState: code,
        cause: new Error(message),
      });
    }
    const raw = err instanceof Error ? err.message : String(err);
    const code = (err as { code?: unknown } | null)?.code;
    const reason = typeof code === "string" && /^[A-Z_]+$/.test(code) ? ` (${code})` : "";
    return new BindingError("connection_failed", {
      message: `PooledDbClient: could not reach the database through Hyperdrive${reason}`,
      cause: new Error(this.#redact(raw)),
    });
  }

  /** Removes the connection string, the password and the host from `text`. */
  #redact(text: string): string {
    const { connectionString, password, host } = this.#hyperdrive;
    let out = text;
    for (const secret of [connectionString, password, host]) {
      if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
    }
    return out;
  }
}
