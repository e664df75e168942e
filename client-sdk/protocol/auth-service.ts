/**
 * @module
 * The contract of the auth worker's `AuthService` RPC entrypoint, in the
 * lowest layer that needs it: the entrypoint (workers) implements it, the
 * service-binding client (client SDK) calls it. Types only: a consuming worker
 * type-checks against this, never against the auth worker's code.
 */
import type { RateLimitDecision } from "../rate-limit/limiter";
import type { RevocationResult, SessionInfo } from "./lifecycle";
import type { SessionPolicy } from "./policy";
import type { AccessTokenResult, LiveTicket } from "./provider-access";
import type { KnownDevice, RevocationActor, RevocationReceipt, TimelinePage } from "./security-record";
import type { AppUser } from "./users";

/** What `resolveSession` returns over RPC: no token, no record internals. */
export interface RpcSession {
  sessionId: string;
  user: AppUser;
  /** When the session ends (the earlier of idle and absolute expiry), ms. */
  expiresAt: number;
  /** When the person last actively authenticated (ms): step-up compares it with a maximum age. */
  authenticatedAt: number;
  /** Set when an operator is signed in as this person (the provider's impersonation). */
  impersonator: { email: string; reason: string | null } | null;
}

/**
 * What a consumer may add to `resolveUser` / `resolveSession` beside the Cookie header.
 * `deviceSkipped`: the request's `Secure-Session-Skipped` header as received (device binding): it
 * never changes the answer, only how the user's timeline words a bound session refused for lack of
 * a fresh device proof (the browser's "could not refresh" rather than "a copied cookie?").
 */
export interface ResolveOptions {
  deviceSkipped?: string | null;
}

/** The methods of the `AuthService` entrypoint. Arguments are validated there (a bad one: `TypeError`). */
export interface AuthServiceApi {
  /** The user of the session in this Cookie header, or null. */
  resolveUser(cookieHeader: string | null, options?: ResolveOptions): Promise<AppUser | null>;
  /** The session in this Cookie header (public id, user, expiry), or null. */
  resolveSession(cookieHeader: string | null, options?: ResolveOptions): Promise<RpcSession | null>;
  listSessions(userId: string): Promise<SessionInfo[]>;
  /** Revokes one session by public id; null when no live session has that id. The actor defaults to the user. */
  revokeSession(sessionId: string, actor?: RevocationActor): Promise<RevocationResult | null>;
  /** Revokes every session of the user and closes every open tab. The actor defaults to `{ kind: "admin", label: "service" }`. */
  revokeUser(userId: string, actor?: RevocationActor): Promise<RevocationResult>;
  /** One page of the user's security timeline, newest first (`cursor` from the previous page). */
  timeline(userId: string, options?: { cursor?: string | null; limit?: number }): Promise<TimelinePage>;
  /** The devices and places the user signed in from within the retention window. */
  devices(userId: string): Promise<KnownDevice[]>;
  /** A revocation receipt by id (`rcpt.u.…` or `rcpt.o.…`), or null. */
  receipt(receiptId: string): Promise<RevocationReceipt | null>;
  /** An organization's kill switch: ends every session of every member issued before now. `label` names the caller on the timeline. */
  endOrganizationSessions(organizationId: string, label?: string): Promise<RevocationReceipt>;
  /** Lifts an organization's kill switch for what comes next (ended sessions stay ended). */
  liftOrganizationSessions(organizationId: string): Promise<void>;
  /** The session policy sign-ins into the organization get, and where it comes from. */
  organizationPolicy(
    organizationId: string,
  ): Promise<{ policy: SessionPolicy; source: "operator" | "configured" | "default" }>;
  /** Sets (null: clears) the operator's session policy of the organization. */
  setOrganizationPolicy(organizationId: string, policy: SessionPolicy | null): Promise<void>;
  /**
   * A single-use ticket for the live channel of the session in this Cookie header, with where the
   * channel, its script and the signed-out page are; null without an active session.
   */
  liveTicket(cookieHeader: string): Promise<LiveTicket | null>;
  /**
   * A fresh access token of the identity provider for this cookie's session (refreshed one at a
   * time in the user's session object), or why there is none.
   */
  accessToken(cookieHeader: string): Promise<AccessTokenResult>;
  /** One fixed-window check on the auth worker's limiter (keys namespaced `rl:svc:`). */
  checkRateLimit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  /**
   * `count` checks of one key at once (1 to 1000), decided in order: what `AuthServiceClient`
   * sends when a worker's checks of one key were concurrent. One decision per check, in order.
   */
  checkRateLimitBatch(key: string, limit: number, windowSeconds: number, count: number): Promise<RateLimitDecision[]>;
}
