/**
 * @module
 * `AppConnectionsError`: the one error class of the app side of app connections (issue 31), with
 * literal codes. A notice that fails validation, a holder or registry that cannot be reached, or a
 * binding missing from the app's wrangler config. Messages are fixed per code and name no session.
 */
import { GatehouseError, type GatehouseErrorOptions } from "../core/errors";

export type AppConnectionsErrorCode =
  /** A `SessionsEndedNotice` without the contract's shape. 400. */
  | "invalid_notice"
  /** `register` was given arguments without the documented shape. 400. */
  | "invalid_registration"
  /** App tags that would not fit beside the session tag (over 9, over 256 characters, or the session prefix). 500. */
  | "invalid_tags"
  /** The app's registry (`SessionConnections`) did not answer. 503. */
  | "registry_unavailable"
  /** One or more holders did not answer a notice; the auth worker retries it. 503. */
  | "holder_unavailable"
  /** A binding this piece needs is not in the worker's env (wrangler config). 500. */
  | "not_bound"
  /** The holder object has no name (it was not addressed with `getByName`/`idFromName`) and none was given. 500. */
  | "holder_unnamed";

const STATUS: Record<AppConnectionsErrorCode, number> = {
  invalid_notice: 400,
  invalid_registration: 400,
  invalid_tags: 500,
  registry_unavailable: 503,
  holder_unavailable: 503,
  not_bound: 500,
  holder_unnamed: 500,
};

const MESSAGE: Record<AppConnectionsErrorCode, string> = {
  invalid_notice: "The sessions-ended notice does not have the expected shape.",
  invalid_registration: "The connection registration does not have the expected shape.",
  invalid_tags: "A connection's app tags must be at most 9, each at most 256 characters, none starting with gh:s:.",
  registry_unavailable: "The app's connection registry did not answer.",
  holder_unavailable: "An object holding connections did not answer the notice.",
  not_bound: "A binding of app connections is missing from this worker's configuration.",
  holder_unnamed: "The object holding connections has no name: address it with getByName, or pass name.",
};

/**
 * @example
 * ```ts
 * try { await receiver.sessionsEnded(notice); }
 * catch (err) { if (err instanceof AppConnectionsError && err.code === "invalid_notice") … }
 * ```
 */
export class AppConnectionsError extends GatehouseError<AppConnectionsErrorCode> {
  override name = "AppConnectionsError";

  constructor(code: AppConnectionsErrorCode, options: Omit<GatehouseErrorOptions, "status"> = {}) {
    super(code, { status: STATUS[code], message: options.message ?? MESSAGE[code], cause: options.cause });
  }
}
