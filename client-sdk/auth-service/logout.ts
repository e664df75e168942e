/**
 * @module
 * `ServiceLogoutHandler`: the sign-out route of a consuming worker. A consumer
 * cannot post the auth worker's CSRF form (its CSRF cookie is host-only and
 * `SameSite=Strict`), so it signs out on its own origin: a POST that must come
 * from this very origin (`Origin`, else `Sec-Fetch-Site: same-origin`), whose
 * session is revoked over RPC. It never signs out on GET and never follows a
 * redirect target from the request.
 */
import { wantsJson } from "../auth-context";
import { jsonError } from "../core/errors";
import type { Middleware } from "../core/middleware";
import { AuthServiceError } from "./errors";
import type { AuthServiceSession, RevocationResult } from "./types";

/** What the handler needs of `AuthServiceClient`. */
export interface ServiceLogoutClient {
  resolveSession(request: Request): Promise<AuthServiceSession | null>;
  revokeSession(sessionId: string): Promise<RevocationResult | null>;
}

export interface ServiceLogoutOptions {
  /** Where browsers land afterwards: a path on this origin. Default `/`. */
  redirectTo?: string;
}

export type LogoutRefusal = "method_not_allowed" | "cross_origin";

/**
 * Why a sign-out request must be refused, or null. The consumer holds no secret to sign a CSRF
 * token with, so the check is the browser's own word on where the POST came from: `Origin` must be
 * this origin (browsers always send it on POST), or, without `Origin`, fetch metadata must say
 * `same-origin`. A request with neither is refused: it is not a browser form of this site.
 */
export function logoutRefusal(request: Request): LogoutRefusal | null {
  if (request.method !== "POST") return "method_not_allowed";
  const origin = request.headers.get("Origin");
  if (origin !== null) return origin === new URL(request.url).origin ? null : "cross_origin";
  return request.headers.get("Sec-Fetch-Site") === "same-origin" ? null : "cross_origin";
}

/**
 * @example
 * ```ts
 * const logout = new ServiceLogoutHandler(new AuthServiceClient(env.AUTH));
 * app.hono.post("/logout", (c) => logout.handle(c.req.raw));
 * // In a page: <form method="post" action="/logout"><button>Sign out</button></form>
 * ```
 */
export class ServiceLogoutHandler implements Pick<Middleware, "handle"> {
  readonly #client: ServiceLogoutClient;
  readonly #redirectTo: string;

  constructor(client: ServiceLogoutClient, options: ServiceLogoutOptions = {}) {
    const redirectTo = options.redirectTo ?? "/";
    if (!redirectTo.startsWith("/") || redirectTo.startsWith("//") || redirectTo.includes("\\")) {
      throw new TypeError("redirectTo must be a path on this origin (starting with a single /)");
    }
    this.#client = client;
    this.#redirectTo = redirectTo;
  }

  /** Signs the request's session out (revoked at the auth worker) and redirects, or refuses. */
  async handle(request: Request): Promise<Response> {
    const refusal = logoutRefusal(request);
    if (refusal === "method_not_allowed") {
      const res = jsonError(405, "method_not_allowed", "Sign out with POST");
      res.headers.set("Allow", "POST");
      return res;
    }
    if (refusal) return jsonError(403, "csrf_failed", "The sign-out was sent from another site.");
    let revoked = false;
    try {
      const session = await this.#client.resolveSession(request);
      if (session) revoked = (await this.#client.revokeSession(session.sessionId)) !== null;
    } catch (err) {
      if (!(err instanceof AuthServiceError)) throw err;
      if (err.status >= 500) console.error("gatehouse: sign-out through the auth service failed", err.code);
      return jsonError(err.status, err.code, err.message);
    }
    if (wantsJson(request)) return Response.json({ signedOut: revoked }, { headers: { "Cache-Control": "no-store" } });
    return new Response(null, {
      status: 303,
      headers: { Location: this.#redirectTo, "Cache-Control": "no-store" },
    });
  }
}
