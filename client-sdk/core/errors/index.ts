/**
 * @module
 * The error contract shared by every Gatehouse layer. Each layer subclasses
 * `GatehouseError` with its own literal-union of codes; `errorResponse` turns
 * one into a JSON body. Anything that is not a `GatehouseError` becomes a
 * plain 500 that never carries a message, stack or cause to the client.
 */

/** Options accepted by every `GatehouseError` subclass. */
export interface GatehouseErrorOptions {
  /** HTTP status to answer with when the error reaches a handler. Default 500. */
  status?: number;
  /** Human readable explanation. Sent to the client when `status < 500`. */
  message?: string;
  /** The underlying error, kept for logs, never serialised. */
  cause?: unknown;
}

/**
 * Base class for typed errors. `code` is a stable machine-readable string,
 * `status` the HTTP status a handler answers with.
 *
 * @example
 * ```ts
 * class AuthError extends GatehouseError<"invalid_state"> { override name = "AuthError"; }
 * throw new AuthError("invalid_state", { status: 400, message: "Login expired, start again" });
 * ```
 */
export class GatehouseError<Code extends string = string> extends Error {
  override name = "GatehouseError";
  readonly code: Code;
  readonly status: number;

  constructor(code: Code, options: GatehouseErrorOptions = {}) {
    super(options.message ?? code, { cause: options.cause });
    this.code = code;
    this.status = options.status ?? 500;
  }
}

/** The JSON body of every error answer. */
export interface ErrorBody {
  error: string;
  message: string;
}

const INTERNAL: ErrorBody = { error: "internal_error", message: "Internal Server Error" };

/** Maps any thrown value to a status and a body safe to send to a client. */
export function toErrorBody(err: unknown): { status: number; body: ErrorBody } {
  if (err instanceof GatehouseError && err.status >= 400 && err.status < 500) {
    return { status: err.status, body: { error: err.code, message: err.message } };
  }
  if (err instanceof GatehouseError && err.status >= 500 && err.status < 600) {
    // Server-side errors keep their code (useful to operators) but not their message.
    return { status: err.status, body: { error: err.code, message: INTERNAL.message } };
  }
  return { status: 500, body: INTERNAL };
}

/** Builds a JSON error response. */
export function jsonError(status: number, error: string, message: string, headers?: HeadersInit): Response {
  const res = Response.json({ error, message } satisfies ErrorBody, { status, headers });
  res.headers.set("Cache-Control", "no-store");
  return res;
}

/** Turns any thrown value into a JSON response, logging what is not a client error. */
export function errorResponse(err: unknown): Response {
  const { status, body } = toErrorBody(err);
  if (status >= 500) console.error("gatehouse: unhandled error", err);
  return jsonError(status, body.error, body.message);
}
