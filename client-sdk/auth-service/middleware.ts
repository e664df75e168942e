/**
 * @module
 * `ServiceAuthMiddleware`: `AuthMiddleware` for a consuming worker. It
 * resolves the session through the auth worker's service binding and sets the
 * same request values, so `currentUser` and `RoleMiddleware` work after it.
 * Without a session: page navigations go to the auth worker's login URL with
 * `return_to`; API calls (non-GET, JSON-only Accept, or `api: true`) get 401 JSON. It never grants a request when the
 * auth worker cannot answer: that is a clear 5xx JSON answer.
 */
import { CurrentOrganizationSlug, CurrentSession } from "../core/auth-context";
import { jsonError } from "../core/errors";
import { type Middleware, type Next, setRequestValue } from "../core/middleware";
import { AuthServiceError } from "./errors";
import type { ServiceSessionResolver } from "./types";

export interface ServiceAuthMiddlewareOptions {
  /**
   * Absolute URL of the auth worker's login route, e.g. `https://auth.example.com/auth/login`.
   * `return_to` is the wanted path when it shares the request's origin, else the wanted absolute URL.
   */
  loginUrl: string;
  /** API routes: answer 401 JSON to every request without a session, never a redirect. Default false. */
  api?: boolean;
  /** Resolves the current organization (`OrgResolver` from gatehouse/auth, or any `{ resolve(request) }`). */
  orgResolver?: { resolve(request: Request): { slug: string } | null };
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
  }

  async handle(request: Request, next: Next): Promise<Response> {
    let session: Awaited<ReturnType<ServiceSessionResolver["resolveSession"]>>;
    try {
      session = await this.#sessions.resolveSession(request);
    } catch (err) {
      if (!(err instanceof AuthServiceError)) throw err;
      if (err.status >= 500) console.error("gatehouse: auth service call failed", err.code, err.method ?? "");
      return jsonError(err.status, err.code, err.message);
    }
    if (!session) return this.#unauthenticated(request);
    setRequestValue(request, CurrentSession, session);
    if (this.#orgResolver)
      setRequestValue(request, CurrentOrganizationSlug, this.#orgResolver.resolve(request)?.slug ?? null);
    const res = await next();
    if (!res.headers.has("Cache-Control")) {
      try {
        res.headers.set("Cache-Control", "private, no-store");
      } catch {
        // Immutable headers (a fetched response passed through): leave them as they are.
      }
    }
    return res;
  }

  #unauthenticated(request: Request): Response {
    const url = new URL(request.url);
    const isNavigation = !this.#api && (request.method === "GET" || request.method === "HEAD") && !wantsJson(request);
    if (!isNavigation) return jsonError(401, "unauthenticated", "Sign in first");
    return new Response(null, {
      status: 302,
      headers: { Location: loginUrlFor(this.#loginUrl, url), "Cache-Control": "no-store" },
    });
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

/** The client asked for JSON and not for HTML (an API call rather than a page). */
function wantsJson(request: Request): boolean {
  const accept = request.headers.get("Accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/html");
}
