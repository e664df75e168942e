/**
 * @module
 * `AuthServiceError`: the one error class of the service-binding client, and
 * `toAuthServiceError`, which classifies whatever a call to the auth worker
 * threw. Messages are safe to show (fixed text per code, or the entrypoint's
 * own argument-validation message); the remote error stays in `cause`, for logs only.
 */
import { GatehouseError, type GatehouseErrorOptions } from "../core/errors";

export type AuthServiceErrorCode =
  /** The entrypoint refused an argument (it threw a `TypeError`), or the client did. 400. */
  | "invalid_argument"
  /** The auth worker could not be reached or reported itself unavailable; worth retrying. 503. */
  | "auth_service_unavailable"
  /** The auth worker threw while handling the call. 502. */
  | "auth_service_error"
  /** The call got no answer within `timeoutMs`. 504. */
  | "auth_service_timeout"
  /** The deployed auth worker has no such method (it is older than this SDK). 502. */
  | "auth_service_unsupported"
  /** The answer does not have the documented shape (the binding points at another worker?). 502. */
  | "auth_service_bad_response"
  /** No service binding was given (e.g. `env.AUTH` is missing from wrangler config). 500. */
  | "auth_service_not_bound";

const STATUS: Record<AuthServiceErrorCode, number> = {
  invalid_argument: 400,
  auth_service_unavailable: 503,
  auth_service_error: 502,
  auth_service_timeout: 504,
  auth_service_unsupported: 502,
  auth_service_bad_response: 502,
  auth_service_not_bound: 500,
};

const MESSAGE: Record<AuthServiceErrorCode, string> = {
  invalid_argument: "The sign-in service refused an argument.",
  auth_service_unavailable: "The sign-in service is unavailable. Try again shortly.",
  auth_service_error: "The sign-in service failed to answer.",
  auth_service_timeout: "The sign-in service did not answer in time. Try again shortly.",
  auth_service_unsupported: "The sign-in service does not support this request yet.",
  auth_service_bad_response: "The sign-in service gave an answer this worker cannot read.",
  auth_service_not_bound: "The sign-in service is not configured for this worker.",
};

export interface AuthServiceErrorOptions extends Omit<GatehouseErrorOptions, "status"> {
  /** The `AuthService` method that was called. */
  method?: string;
}

/**
 * @example
 * ```ts
 * try { await auth.revokeUser(id); }
 * catch (err) { if (err instanceof AuthServiceError && err.retryable) … }
 * ```
 */
export class AuthServiceError extends GatehouseError<AuthServiceErrorCode> {
  override name = "AuthServiceError";
  /** The `AuthService` method that failed, when known. */
  readonly method: string | undefined;

  constructor(code: AuthServiceErrorCode, options: AuthServiceErrorOptions = {}) {
    super(code, { status: STATUS[code], message: options.message ?? MESSAGE[code], cause: options.cause });
    this.method = options.method;
  }

  /** True when the same call may succeed later (the auth worker was down, busy or slow). */
  get retryable(): boolean {
    return this.code === "auth_service_unavailable" || this.code === "auth_service_timeout";
  }
}

/** What workerd puts on an exception that crossed an RPC boundary. */
interface RpcFailure {
  message?: unknown;
  /** Set when the remote code threw (rather than the call failing in transit). */
  remote?: unknown;
  /** Own properties of the remote error (workerd carries them across), e.g. a `GatehouseError`'s status. */
  status?: unknown;
}

const NOT_IMPLEMENTED = /does not implement the method/;
/**
 * What local development's service registry (wrangler dev) throws, marked remote, when the bound
 * worker is not running: "Worker "gatehouse-auth" not found. Make sure it is running locally.".
 * It never reached the auth worker, so it is unavailability, not a failure of its code.
 */
const NOT_RUNNING = /Worker ".*" not found\. Make sure it is running locally|Couldn't find a local dev session/;

/**
 * Classifies what a call to `AuthService.<method>` threw:
 * - a remote `TypeError` is the entrypoint's argument validation → `invalid_argument` (its message kept);
 *   "does not implement the method" → `auth_service_unsupported`;
 * - another remote error with status 503 (the auth worker's store is down), or local development's
 *   "worker not running" (no status, `NOT_RUNNING`) → `auth_service_unavailable`; any other remote
 *   error → `auth_service_error`;
 * - an error without `remote` never reached the auth worker's code (connection lost, overloaded,
 *   isolate gone) → `auth_service_unavailable`.
 */
export function toAuthServiceError(method: string, err: unknown): AuthServiceError {
  if (err instanceof AuthServiceError) return err;
  const failure: RpcFailure = typeof err === "object" && err !== null ? (err as RpcFailure) : {};
  const message = typeof failure.message === "string" ? failure.message : "";
  if (failure.remote === true) {
    if (err instanceof TypeError && NOT_IMPLEMENTED.test(message)) {
      return new AuthServiceError("auth_service_unsupported", { method, cause: err });
    }
    if (err instanceof TypeError) {
      return new AuthServiceError("invalid_argument", {
        method,
        message: message.slice(0, 200) || MESSAGE.invalid_argument,
        cause: err,
      });
    }
    if (failure.status === 503 || (failure.status === undefined && NOT_RUNNING.test(message))) {
      return new AuthServiceError("auth_service_unavailable", { method, cause: err });
    }
    return new AuthServiceError("auth_service_error", { method, cause: err });
  }
  return new AuthServiceError("auth_service_unavailable", { method, cause: err });
}
