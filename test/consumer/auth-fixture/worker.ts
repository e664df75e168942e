/**
 * Auxiliary worker of the consumer tests: the real auth worker (fetch handler,
 * `AuthService`, `UserSessions`) plus test-only entrypoints that no production
 * config binds. `TestSessions` opens sessions with the auth worker's own
 * SessionManager (same secret, store and session objects), the way a login
 * would; the other classes make `AuthService` fail or stall on purpose.
 * Bundled by test/node/consumer-auth-bundle.ts before miniflare loads it.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { authApplication } from "../../../workers/auth/app";
import { AuthError } from "../../../workers/auth/errors";
import { SessionManager, type SignInFacts } from "../../../workers/auth/session/session-manager";
import type { IdentityUser } from "../../../workers/auth/types";
import { AuthService, type AuthWorkerEnv } from "../../../workers/auth/worker";

export { AuthService, default, OrganizationSessions, RateLimiterDO, UserSessions } from "../../../workers/auth/worker";

export class TestSessions extends WorkerEntrypoint<AuthWorkerEnv> {
  /** Creates a session as the callback route would; returns its public id and the `Cookie` header for it. */
  async create(
    user: IdentityUser,
    organizationId?: string,
    signIn: SignInFacts = {},
  ): Promise<{ sessionId: string; cookie: string }> {
    const sessions = authApplication(this.env).container.resolve(SessionManager);
    const { sessionId, response } = await sessions.createSession(user, organizationId, {}, signIn);
    const cookie = response.headers.get("Set-Cookie")!.split(";")[0]!;
    return { sessionId, cookie };
  }
}

/** `AuthService` whose session store is down: it throws the auth module's own 503 error. */
export class StoreDownAuthService extends AuthService {
  override async resolveSession(): Promise<never> {
    throw new AuthError("session_store_unavailable", { status: 503, message: "Sessions are unavailable" });
  }
}

/** `AuthService` with a bug: an unexpected error (internal words in its message) on every call. */
export class BrokenAuthService extends AuthService {
  override async resolveSession(): Promise<never> {
    throw new Error("internal: SESSION_SECRET table sess: missing at worker.js:12:34");
  }
  override async listSessions(): Promise<never> {
    throw new Error("internal: SESSION_SECRET table sess: missing at worker.js:12:34");
  }
}

/** `AuthService` that answers `resolveSession` only after 500 ms. */
export class SlowAuthService extends AuthService {
  override async resolveSession(cookieHeader: string | null) {
    await scheduler.wait(500);
    return super.resolveSession(cookieHeader);
  }
}

/** An entrypoint with `AuthService`'s method names but another answer shape (a misrouted binding). */
export class OtherShapeService extends WorkerEntrypoint {
  async resolveSession(): Promise<{ id: number }> {
    return { id: 1 };
  }
  async listSessions(): Promise<{ sessions: [] }> {
    return { sessions: [] };
  }
}
