/**
 * @module
 * `AuthMiddleware` (spec): requires a valid session. Without one, a page
 * navigation is redirected to `/auth/login?return_to=<the path wanted>`; an
 * API call (non-GET, or asking for JSON) gets 401 JSON instead of a redirect
 * it cannot follow. Authenticated responses are marked `private, no-store`,
 * so the back button cannot show a page after logout.
 */
import { type Middleware, type Next, setRequestValue } from "gatehouse";
import type { OrgResolvable } from "../../org";
import { wantsJson } from "../../routes/pages";
import type { ResolvedSession } from "../../session/session-manager";
import { CurrentOrganizationSlug, CurrentSession } from "../context";

/** Anything that resolves a session from a request: `SessionManager`, or the service-binding client. */
export interface SessionResolver {
  resolveSession(request: Request): Promise<ResolvedSession | null>;
}

export interface AuthMiddlewareOptions {
  /** Where to send people without a session. Default `/auth/login`. */
  loginPath?: string;
  /** Resolves the current organization for `RoleMiddleware`. */
  orgResolver?: OrgResolvable;
}

export class AuthMiddleware implements Middleware {
  readonly #sessions: SessionResolver;
  readonly #loginPath: string;
  readonly #orgResolver: OrgResolvable | undefined;

  constructor(sessions: SessionResolver, options: AuthMiddlewareOptions = {}) {
    this.#sessions = sessions;
    this.#loginPath = options.loginPath ?? "/auth/login";
    this.#orgResolver = options.orgResolver;
  }

  async handle(request: Request, next: Next): Promise<Response> {
    const session = await this.#sessions.resolveSession(request);
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
    const isNavigation = (request.method === "GET" || request.method === "HEAD") && !wantsJson(request);
    if (!isNavigation) {
      return Response.json(
        { error: "unauthenticated", message: "Sign in first" },
        { status: 401, headers: { "Cache-Control": "no-store" } },
      );
    }
    const login = new URL(this.#loginPath, url);
    login.searchParams.set("return_to", `${url.pathname}${url.search}`);
    return new Response(null, {
      status: 302,
      headers: { Location: `${login.pathname}${login.search}`, "Cache-Control": "no-store" },
    });
  }
}
