/**
 * @module
 * The built-in driver of `PooledDbClient`, used when none is passed: a small Postgres client over
 * Hyperdrive's own socket (`Hyperdrive.connect()`), with WebCrypto and streams only, so it needs no
 * package and no `nodejs_compat`. One short connection per query, as `postgresDriver` does:
 * Hyperdrive pools the real connections and a Worker may not share sockets across requests. It
 * never sends more than one statement per query, and its errors never carry the connection
 * string, the password or the host.
 */
import { connectionFailed, queryFailed } from "../errors";
import { md5Password, ScramSha256 } from "./auth";
import {
  type Column,
  concat,
  dataRow,
  errorFields,
  extendedQuery,
  MessageReader,
  MessageWriter,
  rowDescription,
  startupMessage,
} from "./protocol";

/** Until the server is ready for a query (postgres.js's `connect_timeout` in `postgresDriver` is the same). */
const CONNECT_TIMEOUT_MS = 10_000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The built-in driver (a `PooledDbDriver`). */
export const wireDriver = {
  async query(hyperdrive: Hyperdrive, sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
    let connection: Connection | undefined;
    try {
      connection = await Connection.open(hyperdrive);
      return await connection.query(sql, params);
    } catch (err) {
      throw err instanceof PostgresError
        ? queryFailed(err.code, err.message, hyperdrive)
        : connectionFailed(err, hyperdrive);
    } finally {
      await connection?.close();
    }
  },
};

/** The largest backend message read (64 MiB): a larger one is refused as malformed. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** An ErrorResponse from the server (mapped to `query_failed` with its SQLSTATE). */
class PostgresError extends Error {
  override name = "PostgresError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

class Connection {
  readonly #socket: Socket;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer = new Uint8Array(0);

  private constructor(socket: Socket) {
    this.#socket = socket;
    this.#writer = socket.writable.getWriter();
    this.#reader = socket.readable.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    socket.closed.catch(() => {}); // failures surface through the reads and writes
  }

  /** Connects and authenticates; the socket is closed again when that fails. */
  static async open(hyperdrive: Hyperdrive): Promise<Connection> {
    const connection = new Connection(hyperdrive.connect());
    // Not core/deadline's withDeadline: this module is loaded by `import()` (hyperdrive/index.ts), and
    // a module it shares with statically imported code becomes a lazily initialised copy in a
    // consumer's esbuild bundle. The wire driver imports nothing from core for that reason.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error("connection timed out"), { code: "CONNECT_TIMEOUT" })),
        CONNECT_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([connection.#startup(credentials(hyperdrive)), timeout]);
      return connection;
    } catch (err) {
      await connection.close();
      throw err;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  /** One statement through the extended protocol: its rows, or the server's error. */
  async query(sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
    await this.#writer.write(extendedQuery(sql, params));
    let columns: Column[] = [];
    const rows: Record<string, unknown>[] = [];
    let error: PostgresError | null = null;
    for (;;) {
      const { type, body } = await this.#next();
      if (type === "T") columns = rowDescription(body);
      else if (type === "D") rows.push(dataRow(body, columns));
      else if (type === "E") error ??= postgresError(body);
      else if (type === "G") await this.#refuseCopyIn();
      else if (type === "Z") break;
      // ParseComplete, BindComplete, NoData, CommandComplete, notices, COPY OUT data: nothing to do.
    }
    if (error) throw error;
    return rows;
  }

  /**
   * COPY FROM STDIN has no data to send here: CopyFail, then Sync again (the server ignored the one
   * sent with the query while it was in copy-in mode and waits for another after the failure).
   */
  #refuseCopyIn(): Promise<void> {
    return this.#writer.write(
      concat([new MessageWriter("f").cstr("COPY FROM STDIN is not supported").end(), new MessageWriter("S").end()]),
    );
  }

  /** Terminate, then close; never throws (the connection may already be gone). */
  async close(): Promise<void> {
    await this.#writer.write(new MessageWriter("X").end()).catch(() => {});
    await this.#socket.close().catch(() => {});
  }

  async #startup({ user, password, database }: Credentials): Promise<void> {
    await this.#socket.opened;
    await this.#writer.write(
      startupMessage({ user, database, client_encoding: "UTF8", application_name: "gatehouse-workers" }),
    );
    let scram: ScramSha256 | null = null;
    for (;;) {
      const { type, body } = await this.#next();
      if (type === "E") throw postgresError(body);
      if (type === "Z") return;
      if (type !== "R") continue; // ParameterStatus, BackendKeyData, notices
      const reader = new MessageReader(body);
      const method = reader.i32();
      if (method === 0) {
        // AuthenticationOk. Once SCRAM started, only after the server proved it knows the password.
        if (scram && !scram.serverVerified) throw new Error("the database skipped the SCRAM server signature");
        continue;
      }
      if (method === 3) await this.#password(password);
      else if (method === 5) await this.#password(await md5Password(user, password, reader.bytes(4)));
      else if (method === 10) {
        const mechanisms: string[] = [];
        for (let m = reader.cstr(); m !== ""; m = reader.cstr()) mechanisms.push(m);
        if (!mechanisms.includes("SCRAM-SHA-256")) throw new Error(`unsupported SASL mechanisms: ${mechanisms}`);
        scram = new ScramSha256();
        const first = encoder.encode(scram.clientFirst);
        const initial = new MessageWriter("p").cstr("SCRAM-SHA-256").i32(first.byteLength).bytes(first);
        await this.#writer.write(initial.end());
      } else if (method === 11 && scram) {
        const final = await scram.clientFinal(password, decoder.decode(body.subarray(4)));
        await this.#writer.write(new MessageWriter("p").bytes(encoder.encode(final)).end());
      } else if (method === 12 && scram) scram.verifyServerFinal(decoder.decode(body.subarray(4)));
      else throw new Error(`unsupported authentication method ${method}`);
    }
  }

  #password(text: string): Promise<void> {
    return this.#writer.write(new MessageWriter("p").cstr(text).end());
  }

  /** The next backend message: its type and body. */
  async #next(): Promise<{ type: string; body: Uint8Array }> {
    await this.#fill(5);
    const length = new DataView(this.#buffer.buffer, this.#buffer.byteOffset + 1, 4).getInt32(0);
    // A length counts itself (≥ 4); anything else, or a message past the cap, is not Postgres
    // talking: stop here instead of spinning on an empty read or buffering gigabytes.
    if (length < 4 || length > MAX_MESSAGE_BYTES) throw new Error("the database sent a malformed message");
    await this.#fill(1 + length);
    const type = String.fromCharCode(this.#buffer[0]!);
    const body = this.#buffer.slice(5, 1 + length);
    this.#buffer = this.#buffer.subarray(1 + length);
    return { type, body };
  }

  async #fill(size: number): Promise<void> {
    const chunks: Uint8Array[] = [this.#buffer];
    let have = this.#buffer.byteLength;
    while (have < size) {
      const { done, value } = await this.#reader.read();
      if (done) throw new Error("the database closed the connection");
      chunks.push(value);
      have += value.byteLength;
    }
    if (chunks.length > 1) this.#buffer = concat(chunks);
  }
}

function postgresError(body: Uint8Array): PostgresError {
  const { code, message } = errorFields(body);
  return new PostgresError(code, message);
}

interface Credentials {
  user: string;
  password: string;
  database: string;
}

/** From the binding's own fields, else from its connection string (a binding-like object may only have that). */
function credentials(hyperdrive: Hyperdrive): Credentials {
  let url: URL | null = null;
  try {
    url = new URL(hyperdrive.connectionString);
  } catch {
    // Not a URL: only the binding's fields count.
  }
  const user = hyperdrive.user ?? decodeURIComponent(url?.username ?? "");
  const password = hyperdrive.password ?? decodeURIComponent(url?.password ?? "");
  const database = hyperdrive.database ?? (decodeURIComponent(url?.pathname.slice(1) ?? "") || user);
  return { user, password, database };
}
