/**
 * @module
 * `PooledDbClient`: parameterized queries on an external database through a
 * Hyperdrive binding. Built from the binding alone (the spec's constructor), it
 * queries with its built-in Postgres client (`./wire`, loaded on the first
 * query); `postgresDriver` from `gatehouse-workers/hyperdrive` (postgres.js) can
 * be passed instead. It never puts the connection string or credentials in an error.
 */
import { BindingError } from "../errors";

/** A row as the driver parses it (postgres.js: int8 and numeric arrive as strings, json as values). */
export type PooledDbRow = Record<string, unknown>;

/**
 * What runs a query for `PooledDbClient`. It opens its own connection through
 * the binding, maps database errors to `BindingError` (`query_failed` with the
 * SQLSTATE, `connection_failed`) and keeps the connection string and
 * credentials out of every message.
 */
export interface PooledDbDriver {
  query(hyperdrive: Hyperdrive, sql: string, params: readonly unknown[]): Promise<PooledDbRow[]>;
}

export interface PooledDbClientOptions {
  /** The database driver. Default: the built-in Postgres client; or `postgresDriver` from `gatehouse-workers/hyperdrive`. */
  driver?: PooledDbDriver;
}

/**
 * @example
 * ```ts
 * import { PooledDbClient } from "gatehouse-workers/bindings";
 *
 * const pg = new PooledDbClient(env.HYPERDRIVE);
 * const { results } = await pg.query("SELECT id, email FROM users WHERE id = $1", [userId]);
 * ```
 */
export class PooledDbClient {
  readonly #hyperdrive: Hyperdrive;
  readonly #driver: PooledDbDriver | undefined;

  constructor(hyperdrive: Hyperdrive, options: PooledDbClientOptions = {}) {
    this.#hyperdrive = hyperdrive;
    this.#driver = options.driver;
  }

  /** The underlying binding. */
  get raw(): Hyperdrive {
    return this.#hyperdrive;
  }

  /**
   * Runs `sql` (one statement) with `$1…$n` bound to `params` and returns the
   * rows. A database error rejects with `BindingError("query_failed")` whose
   * `sqlState` is the SQLSTATE; an unreachable database with
   * `BindingError("connection_failed")`. `null` is SQL NULL; `undefined` is refused.
   */
  async query<T extends PooledDbRow = PooledDbRow>(sql: string, params: unknown[] = []): Promise<{ results: T[] }> {
    if (typeof sql !== "string" || sql.trim() === "") {
      throw new BindingError("invalid_argument", { message: "PooledDbClient.query: sql must be a non-empty string" });
    }
    if (!Array.isArray(params)) {
      throw new BindingError("invalid_argument", { message: "PooledDbClient.query: params must be an array" });
    }
    const undefinedAt = params.indexOf(undefined);
    if (undefinedAt !== -1) {
      throw new BindingError("invalid_argument", {
        message: `PooledDbClient.query: params[${undefinedAt}] is undefined (pass null for SQL NULL)`,
      });
    }
    // Loaded on first use, so a bundler that splits keeps it out of workers that never query.
    const driver: PooledDbDriver = this.#driver ?? (await import("./wire")).wireDriver;
    return { results: (await driver.query(this.#hyperdrive, sql, params)) as T[] };
  }
}
