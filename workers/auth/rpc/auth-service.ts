/**
 * @module
 * `AuthService`: the auth worker's RPC entrypoint for consuming workers
 * bound to it by a service binding. Consumers resolve users and manage
 * sessions without holding the session secret. Every argument is validated
 * here: a bad one throws a `TypeError` with a clear message, never reaching storage.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { StatefulObjectClient } from "../../../client-sdk/bindings/durable-object";
import type { AuthServiceApi, RpcSession } from "../../../client-sdk/protocol";
import { DORateLimiter, type RateLimitDecision } from "../../../client-sdk/rate-limit";
import type { RevocationResult, SessionInfo } from "../../../durable-objects/user-sessions";
import { type AuthWorkerEnv, authApplication } from "../app";
import { assertAuthConfigured, authEnvOf } from "../app/configured";
import { isSessionId, isUserId } from "../ids";
import { SessionManager } from "../session/session-manager";
import type { AppUser } from "../types";

export type { RpcSession };

export class AuthService extends WorkerEntrypoint<AuthWorkerEnv> implements AuthServiceApi {
  get #sessions(): SessionManager {
    this.#assertConfigured();
    return authApplication(this.env).container.resolve(SessionManager);
  }

  /** The worker's configuration check, on the env as bound (binding names as configured). */
  #assertConfigured(): void {
    assertAuthConfigured(this.env);
  }

  /** The user of the session in this Cookie header, or null. */
  async resolveUser(cookieHeader: string | null): Promise<AppUser | null> {
    return (await this.resolveSession(cookieHeader))?.user ?? null;
  }

  /** The session in this Cookie header (public id, user, expiry), or null. */
  async resolveSession(cookieHeader: string | null): Promise<RpcSession | null> {
    if (cookieHeader !== null && typeof cookieHeader !== "string")
      throw new TypeError("cookieHeader must be a string or null");
    const session = await this.#sessions.resolveCookieHeader(cookieHeader);
    if (!session) return null;
    const { record } = session;
    return {
      sessionId: session.sessionId,
      user: session.user,
      expiresAt: Math.min(record.idleExpiresAt, record.absoluteExpiresAt),
    };
  }

  async listSessions(userId: string): Promise<SessionInfo[]> {
    if (!isUserId(userId)) throw new TypeError("userId is not a valid user id");
    return this.#sessions.listSessions(userId);
  }

  /** Revokes one session by public id; null when no live session has that id. */
  async revokeSession(sessionId: string): Promise<RevocationResult | null> {
    if (!isSessionId(sessionId)) throw new TypeError("sessionId must be 64 lowercase hex digits");
    return this.#sessions.revokeSession(sessionId);
  }

  /**
   * One fixed-window check on the auth worker's `RateLimiterDO`, so consuming
   * workers share limits without a Durable Object binding of their own.
   * Keys are namespaced (`rl:svc:`) apart from the auth routes' own limits.
   */
  async checkRateLimit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    if (typeof key !== "string" || key.length === 0 || key.length > 512)
      throw new TypeError("key must be a string of 1-512 characters");
    this.#assertConfigured();
    const namespace = authEnvOf(this.env).RATE_LIMITER;
    if (!namespace) throw new TypeError("this auth worker has no RATE_LIMITER binding");
    // The limiter validates limit and window (RateLimitError("invalid_config") names the bad value).
    let limiter: DORateLimiter;
    try {
      limiter = new DORateLimiter(new StatefulObjectClient(namespace), {
        limit,
        window: windowSeconds,
        prefix: "rl:svc:",
      });
    } catch (err) {
      throw new TypeError(err instanceof Error ? err.message : "invalid rate limit");
    }
    return limiter.check(key);
  }

  /** Revokes every session of the user and closes every open tab. */
  async revokeUser(userId: string): Promise<RevocationResult> {
    if (!isUserId(userId)) throw new TypeError("userId is not a valid user id");
    return this.#sessions.revokeUser(userId);
  }
}
