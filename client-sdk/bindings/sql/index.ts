/**
 * @module
 * `SqlDatabase`: the spec's wrapper over a D1 database. `run` executes raw SQL
 * (DDL), `prepare`/`batch` are D1's own, and `dump` returns a real SQLite file
 * built from plain queries (D1's dump API answers 404 locally and is not offered
 * for current databases). It never loads the dump code until `dump` is called.
 */

import { splitSqlStatements } from "./split";

/** Execution metadata of `run` (D1's exec result: statement count and duration). */
export type ExecResult = D1ExecResult;
/** A statement from `prepare`: `.bind(...values)`, then `.all()`, `.first()`, `.raw()` or `.run()`. */
export type PreparedStatement = D1PreparedStatement;
/** The result of one statement in a `batch`. */
export type StatementResult<T = Record<string, unknown>> = D1Result<T>;

/**
 * @example
 * ```ts
 * const db = new SqlDatabase(env.DB);
 * await db.run("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT)");
 * await db.prepare("INSERT INTO notes (body) VALUES (?)").bind("hello").run();
 * const { results } = await db.prepare("SELECT * FROM notes").all();
 * const file = await db.dump(); // open with any SQLite tool
 * ```
 */
export class SqlDatabase {
  readonly #db: D1Database;

  constructor(db: D1Database) {
    this.#db = db;
  }

  /** The underlying binding. */
  get raw(): D1Database {
    return this.#db;
  }

  /**
   * Executes a raw SQL script without parameters, exactly as written: several statements, over
   * several lines, string literals, comments, quoted identifiers and `CREATE TRIGGER … BEGIN … END`
   * bodies included (D1's own `exec` splits on newlines instead). The statements run in one
   * `batch`: one round trip, one transaction. Returns the statement count and the duration (ms).
   */
  async run(query: string): Promise<ExecResult> {
    const statements = splitSqlStatements(query);
    if (statements.length === 0) return { count: 0, duration: 0 };
    const results = await this.#db.batch(statements.map((sql) => this.#db.prepare(sql)));
    const duration = results.reduce((sum, r) => sum + (r.meta?.duration ?? 0), 0);
    return { count: statements.length, duration };
  }

  prepare(query: string): PreparedStatement {
    return this.#db.prepare(query);
  }

  /** Runs the statements in one round-trip, as one transaction. */
  batch<T = Record<string, unknown>>(statements: PreparedStatement[]): Promise<StatementResult<T>[]> {
    return this.#db.batch<T>(statements);
  }

  /**
   * The whole database (every table, row, index, view and trigger) as the bytes
   * of a SQLite 3 file. All rows are read in one `batch`, so the file is one
   * consistent snapshot; the database must fit in the Worker's memory twice.
   */
  async dump(): Promise<ArrayBuffer> {
    const { dumpDatabase } = await import("./dump");
    return dumpDatabase(this.#db);
  }
}
