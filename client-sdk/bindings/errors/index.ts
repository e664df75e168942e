/**
 * @module
 * `BindingError`: the one error class of the platform-bindings layer, with a
 * literal union of codes. Its messages name the binding, script or method at
 * fault, and never carry a connection string, credential or response body.
 */
import { GatehouseError, type GatehouseErrorOptions } from "../../core/errors";

export type BindingErrorCode =
  /** A wrapper was called with arguments the binding cannot accept. */
  | "invalid_argument"
  /** A 2xx answer whose body is not what the caller asked for (e.g. not JSON). */
  | "invalid_response"
  /** A dispatch namespace has no script of that name. */
  | "script_not_found"
  /** The external database rejected a query (see `sqlState`). */
  | "query_failed"
  /** The external database could not be reached. */
  | "connection_failed"
  /** `PooledDbClient` was built without a database driver (import one from `gatehouse-workers/hyperdrive`). */
  | "driver_missing"
  /** `SqlDatabase.dump()` could not read or encode the database. */
  | "dump_failed";

export interface BindingErrorOptions extends GatehouseErrorOptions {
  /** The Postgres SQLSTATE of a `query_failed` error (e.g. `42P01`). */
  sqlState?: string;
}

/**
 * @example
 * ```ts
 * try { await db.query("SELECT * FROM missing"); }
 * catch (err) { if (err instanceof BindingError && err.sqlState === "42P01") … }
 * ```
 */
export class BindingError extends GatehouseError<BindingErrorCode> {
  override name = "BindingError";
  readonly sqlState: string | undefined;

  constructor(code: BindingErrorCode, options: BindingErrorOptions = {}) {
    super(code, options);
    this.sqlState = options.sqlState;
  }
}
