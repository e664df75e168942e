/**
 * @module
 * `AuthMiddleware` (spec): requires a valid session. Without one, a page
 * navigation is redirected to `/auth/login?return_to=<the path wanted>` and a
 * browser's form submission to `/auth/login` (303); an API call (asking for
 * JSON, or another method without `Accept: text/html`) gets 401 JSON instead of
 * a redirect it cannot follow. Authenticated responses are marked
 * `private, no-store`, so the back button cannot show a page after logout.
 */
import { continueAuthenticated, unauthenticatedResponse } from "../../../../client-sdk/auth-context";
import type { Middleware, Next } from "../../../../client-sdk/core/middleware";
import type { OrgResolvable } from "../../org";
import type { ResolvedSession } from "../../session/session-manager";

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
    if (!session) {
      const url = new URL(request.url);
      const login = new URL(this.#loginPath, url);
      login.searchParams.set("return_to", `${url.pathname}${url.search}`);
      return unauthenticatedResponse(request, `${login.pathname}${login.search}`);
    }
    return continueAuthenticated(request, next, session, this.#orgResolver);
  }
}
