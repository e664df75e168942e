/**
 * @module
 * `PooledDbClient`: parameterized queries on an external database through a
 * Hyperdrive binding. The wire driver is passed in (`postgresDriver` from
 * `gatehouse-workers/hyperdrive`), so a worker that never queries bundles no
 * database code. Without a driver, `query` throws `BindingError("driver_missing")`
 * naming the import; it never loads a driver by itself.
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
  /** The database driver: `postgresDriver` from `gatehouse-workers/hyperdrive`. */
  driver?: PooledDbDriver;
}

/** The import that supplies the driver, named in the `driver_missing` error. */
export const POOLED_DB_DRIVER_IMPORT = 'import { postgresDriver } from "gatehouse-workers/hyperdrive"';

/**
 * @example
 * ```ts
 * import { PooledDbClient } from "gatehouse-workers";
 * import { postgresDriver } from "gatehouse-workers/hyperdrive";
 *
 * const pg = new PooledDbClient(env.HYPERDRIVE, { driver: postgresDriver });
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
   * Runs `sql` with `$1…$n` bound to `params` and returns the rows. A database
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
    if (!this.#driver) {
      throw new BindingError("driver_missing", {
        message:
          `PooledDbClient has no database driver: ${POOLED_DB_DRIVER_IMPORT} and pass it as ` +
          "new PooledDbClient(binding, { driver: postgresDriver }) or new PlatformServiceProvider({ pooledDbDriver: postgresDriver })",
      });
    }
    return { results: (await this.#driver.query(this.#hyperdrive, sql, params)) as T[] };
  }
}
