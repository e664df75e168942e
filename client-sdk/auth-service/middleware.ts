/**
 * @module
 * `ServiceAuthMiddleware`: `AuthMiddleware` for a consuming worker. It
 * resolves the session through the auth worker's service binding and sets the
 * same request values, so `currentUser` and `RoleMiddleware` work after it.
 * Without a session: page navigations go to the auth worker's login URL with
 * `return_to`, a browser's form submission there too (303, no `return_to`); API calls (JSON-only Accept,
 * another method without `Accept: text/html`, or `api: true`) get 401 JSON. It never grants a request when the
 * auth worker cannot answer: that is a clear 5xx JSON answer. With `live`, the pages it guards
 * carry the session's live channel (see live.ts).
 */
import { continueAuthenticated, unauthenticatedResponse } from "../auth-context";
import { jsonError } from "../core/errors";
import type { Middleware, Next } from "../core/middleware";
import { AuthServiceError } from "./errors";
import { LiveChannel, type LiveOptions } from "./live";
import type { ServiceSessionResolver } from "./types";

export interface ServiceAuthMiddlewareOptions {
  /**
   * Absolute URL of the auth worker's login route, e.g. `https://auth.example.com/auth/login`.
   * `return_to` is the wanted path when it shares the request's origin, else the wanted absolute URL.
   */
  loginUrl: string;
  /** API routes: answer 401 JSON to every request without a session, never a redirect. Default false. */
  api?: boolean;
  /** Resolves the current organization (`OrgResolver` from gatehouse-workers/auth, or any `{ resolve(request) }`). */
  orgResolver?: { resolve(request: Request): { slug: string } | null };
  /**
   * The session's live channel in every page this middleware guards (off by default): a tab signs
   * out when the session is revoked anywhere and reloads when its roles change. `true`, or options.
   * The resolver must offer `liveTicket` (`AuthServiceClient` does).
   */
  live?: boolean | LiveOptions;
}

/**
 * @example
 * ```ts
 * const auth = new ServiceAuthMiddleware(new AuthServiceClient(env.AUTH), {
 *   loginUrl: "https://auth.example.com/auth/login",
 *   orgResolver: new OrgResolver(["path-prefix"]),
 * });
 * app.hono.use("/dashboard", toHono(auth));
 * ```
 */
export class ServiceAuthMiddleware implements Middleware {
  readonly #sessions: ServiceSessionResolver;
  readonly #loginUrl: URL;
  readonly #orgResolver: ServiceAuthMiddlewareOptions["orgResolver"];
  readonly #api: boolean;
  readonly #live: LiveChannel | null;

  constructor(sessions: ServiceSessionResolver, options: ServiceAuthMiddlewareOptions) {
    let login: URL;
    try {
      login = new URL(options.loginUrl);
    } catch {
      throw new TypeError(`loginUrl must be an absolute URL (got ${JSON.stringify(options.loginUrl)})`);
    }
    if (login.protocol !== "https:" && login.protocol !== "http:") throw new TypeError("loginUrl must be http(s)");
    this.#sessions = sessions;
    this.#loginUrl = login;
    this.#orgResolver = options.orgResolver;
    this.#api = options.api ?? false;
    this.#live = options.live ? new LiveChannel(sessions, options.live === true ? {} : options.live) : null;
  }

  async handle(request: Request, next: Next): Promise<Response> {
    if (this.#live?.isTicketRequest(request)) return this.#live.ticketResponse(request);
    let session: Awaited<ReturnType<ServiceSessionResolver["resolveSession"]>>;
    try {
      session = await this.#sessions.resolveSession(request);
    } catch (err) {
      if (!(err instanceof AuthServiceError)) throw err;
      if (err.status >= 500) console.error("gatehouse: auth service call failed", err.code, err.method ?? "");
      return jsonError(err.status, err.code, err.message);
    }
    if (!session) return unauthenticatedResponse(request, loginUrlFor(this.#loginUrl, request.url), { api: this.#api });
    if (!this.#live) return continueAuthenticated(request, next, session, this.#orgResolver);
    return this.#live.around(request, () => continueAuthenticated(request, next, session, this.#orgResolver));
  }
}

/**
 * The login URL that brings a person back to `wanted` afterwards: `return_to` is
 * the path (and query) when the login URL shares `wanted`'s origin, else the absolute URL.
 * The auth worker honours a cross-origin `return_to` only if it allows that origin.
 */
export function loginUrlFor(loginUrl: string | URL, wanted: string | URL): string {
  const login = new URL(loginUrl);
  const target = new URL(wanted);
  const path = `${target.pathname}${target.search}`;
  login.searchParams.set("return_to", login.origin === target.origin ? path : `${target.origin}${path}`);
  return login.href;
}
