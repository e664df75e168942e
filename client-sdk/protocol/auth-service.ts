/**
 * @module
 * The contract of the auth worker's `AuthService` RPC entrypoint, in the
 * lowest layer that needs it: the entrypoint (workers) implements it, the
 * service-binding client (client SDK) calls it. Types only: a consuming worker
 * type-checks against this, never against the auth worker's code.
 */
import type { RateLimitDecision } from "../rate-limit/limiter";
import type { RevocationResult, SessionInfo } from "./session-object";
import type { AppUser } from "./users";

/** What `resolveSession` returns over RPC: no token, no record internals. */
export interface RpcSession {
  sessionId: string;
  user: AppUser;
  /** When the session ends (the earlier of idle and absolute expiry), ms. */
  expiresAt: number;
}

/** The methods of the `AuthService` entrypoint. Arguments are validated there (a bad one: `TypeError`). */
export interface AuthServiceApi {
  /** The user of the session in this Cookie header, or null. */
  resolveUser(cookieHeader: string | null): Promise<AppUser | null>;
  /** The session in this Cookie header (public id, user, expiry), or null. */
  resolveSession(cookieHeader: string | null): Promise<RpcSession | null>;
  listSessions(userId: string): Promise<SessionInfo[]>;
  /** Revokes one session by public id; null when no live session has that id. */
  revokeSession(sessionId: string): Promise<RevocationResult | null>;
  /** Revokes every session of the user and closes every open tab. */
  revokeUser(userId: string): Promise<RevocationResult>;
  /** One fixed-window check on the auth worker's limiter (keys namespaced `rl:svc:`). */
  checkRateLimit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
}
