/**
 * @module
 * How both `PooledDbClient` drivers (the built-in wire client and `postgresDriver`) report a
 * failure: a Postgres error is `query_failed` with its SQLSTATE and the server's message; anything
 * else is `connection_failed`. Neither message nor cause may carry the connection string, the
 * password or the host.
 */
import { BindingError } from "../errors";

/** The binding's secrets, as far as a driver may see them in an error text. */
export type HyperdriveSecrets = Pick<Hyperdrive, "connectionString" | "password" | "host">;

/** A Postgres ErrorResponse (`sqlState`, message) as `BindingError("query_failed")`. */
export function queryFailed(sqlState: string, message: string, hyperdrive: HyperdriveSecrets): BindingError {
  const text = redact(message, hyperdrive);
  return new BindingError("query_failed", {
    message: `Postgres error ${sqlState}: ${text}`,
    sqlState,
    cause: new Error(text),
  });
}

/** Anything but a Postgres error, as `BindingError("connection_failed")`; an upper-case `code` is named. */
export function connectionFailed(err: unknown, hyperdrive: HyperdriveSecrets): BindingError {
  const raw = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  const reason = typeof code === "string" && /^[A-Z_]+$/.test(code) ? ` (${code})` : "";
  return new BindingError("connection_failed", {
    message: `PooledDbClient: could not reach the database through Hyperdrive${reason}`,
    cause: new Error(redact(raw, hyperdrive)),
  });
}

/** Removes the connection string, the password and the host from `text`. */
export function redact(text: string, { connectionString, password, host }: HyperdriveSecrets): string {
  let out = text;
  for (const secret of [connectionString, password, host]) {
    if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
  }
  return out;
}
