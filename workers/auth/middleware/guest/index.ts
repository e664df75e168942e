/**
 * @module
 * `GuestMiddleware` (spec): requires no valid session; a signed-in person is
 * redirected to `/` (e.g. away from a sign-in page). It never reveals
 * anything about the session it found.
 */
import type { Middleware, Next } from "../../../../client-sdk/core/middleware";
import type { SessionResolver } from "../auth";

export class GuestMiddleware implements Middleware {
  readonly #sessions: SessionResolver;
  readonly #redirectTo: string;

  constructor(sessions: SessionResolver, options: { redirectTo?: string } = {}) {
    this.#sessions = sessions;
    this.#redirectTo = options.redirectTo ?? "/";
  }

  async handle(request: Request, next: Next): Promise<Response> {
    if (await this.#sessions.resolveSession(request)) {
      return new Response(null, { status: 302, headers: { Location: this.#redirectTo, "Cache-Control": "no-store" } });
    }
    return next();
  }
}
