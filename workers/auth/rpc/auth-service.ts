/**
 * @module
 * `AuthService`: the auth worker's RPC entrypoint for consuming workers
 * bound to it by a service binding. Consumers resolve users and manage
 * sessions without holding the session secret. Every argument is validated
 * here: a bad one throws a `TypeError` with a clear message, never reaching storage (a session
 * policy whole, by `session/policy.ts`).
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { StatefulObjectClient } from "../../../client-sdk/bindings/durable-object";
import type {
  AccessTokenResult,
  AuthServiceApi,
  LiveTicket,
  ResolveOptions,
  RpcSession,
} from "../../../client-sdk/protocol";
import type { SessionPolicy } from "../../../client-sdk/protocol/policy";
import type {
  KnownDevice,
  RevocationActor,
  RevocationReceipt,
  TimelinePage,
} from "../../../client-sdk/protocol/security-record";
import { DORateLimiter, MAX_BATCH_COUNT, type RateLimitDecision } from "../../../client-sdk/rate-limit";
import type { RevocationResult, SessionInfo } from "../../../durable-objects/user-sessions";
import { type AuthWorkerEnv, authApplication } from "../app";
import { assertAuthConfigured, authEnvOf } from "../app/configured";
import { AuthError } from "../errors";
import { isOrganizationId, isReceiptId, isSessionId, isUserId } from "../ids";
import { liveUrls } from "../live/urls";
import { publicOrigin } from "../provider";
import { validatePolicy } from "../session/policy";
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
  async resolveUser(cookieHeader: string | null, options?: ResolveOptions): Promise<AppUser | null> {
    return (await this.resolveSession(cookieHeader, options))?.user ?? null;
  }

  /**
   * The session in this Cookie header (public id, user, expiry), or null. `options.deviceSkipped`:
   * the request's `Secure-Session-Skipped`, which only words the timeline entry of a bound session
   * refused for lack of its device proof (a consumer that leaves it out gets `device_proof_missing`).
   */
  async resolveSession(cookieHeader: string | null, options?: ResolveOptions): Promise<RpcSession | null> {
    if (cookieHeader !== null && typeof cookieHeader !== "string")
      throw new TypeError("cookieHeader must be a string or null");
    const session = await this.#sessions.resolveCookieHeader(
      cookieHeader,
      {},
      { deviceSkipped: deviceSkippedOf(options) },
    );
    if (!session) return null;
    const { record } = session;
    return {
      sessionId: session.sessionId,
      user: session.user,
      expiresAt: Math.min(record.idleExpiresAt, record.absoluteExpiresAt),
      authenticatedAt: session.authenticatedAt,
      impersonator: session.impersonator,
    };
  }

  /** A single-use ticket for the live channel of this cookie's session (see `LiveTicket`), or null. */
  async liveTicket(cookieHeader: string): Promise<LiveTicket | null> {
    if (typeof cookieHeader !== "string") throw new TypeError("cookieHeader must be a string");
    const minted = await this.#sessions.liveTicket(cookieHeader);
    if (!minted) return null;
    return {
      ...liveUrls(publicOrigin(authApplication(this.env).container), minted.userId),
      ticket: minted.ticket,
      userId: minted.userId,
      expiresAt: minted.expiresAt,
    };
  }

  /** A fresh provider access token for this cookie's session, or why there is none. */
  async accessToken(cookieHeader: string): Promise<AccessTokenResult> {
    if (typeof cookieHeader !== "string") throw new TypeError("cookieHeader must be a string");
    try {
      return { ok: true, ...(await this.#sessions.accessTokenFor(cookieHeader)) };
    } catch (err) {
      const reason = err instanceof AuthError ? err.code : null;
      if (
        reason === "unauthenticated" ||
        reason === "reauthentication_required" ||
        reason === "no_provider_tokens" ||
        reason === "refresh_unsupported" ||
        reason === "provider_unavailable"
      ) {
        return { ok: false, reason };
      }
      throw err;
    }
  }

  async listSessions(userId: string): Promise<SessionInfo[]> {
    if (!isUserId(userId)) throw new TypeError("userId is not a valid user id");
    return this.#sessions.listSessions(userId);
  }

  /** Revokes one session by public id; null when no live session has that id. */
  async revokeSession(sessionId: string, actor?: RevocationActor): Promise<RevocationResult | null> {
    if (!isSessionId(sessionId)) throw new TypeError("sessionId must be 64 lowercase hex digits");
    return this.#sessions.revokeSession(sessionId, checkedActor(actor, { kind: "user" }));
  }

  async timeline(userId: string, options: { cursor?: string | null; limit?: number } = {}): Promise<TimelinePage> {
    if (!isUserId(userId)) throw new TypeError("userId is not a valid user id");
    const { cursor = null, limit = 50 } = options ?? {};
    if (cursor !== null && (typeof cursor !== "string" || !/^c[0-9a-z]{1,11}$/.test(cursor))) {
      throw new TypeError("cursor is not one this timeline issued");
    }
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      throw new TypeError("limit must be a whole number from 1 to 100");
    return this.#sessions.timeline(userId, { cursor, limit });
  }

  async devices(userId: string): Promise<KnownDevice[]> {
    if (!isUserId(userId)) throw new TypeError("userId is not a valid user id");
    return this.#sessions.devices(userId);
  }

  async receipt(receiptId: string): Promise<RevocationReceipt | null> {
    if (!isReceiptId(receiptId)) throw new TypeError("receiptId is not a receipt id (rcpt.u.… or rcpt.o.…)");
    return this.#sessions.receipt(receiptId);
  }

  async endOrganizationSessions(organizationId: string, label = "service"): Promise<RevocationReceipt> {
    this.#organizationCall(organizationId);
    if (!ACTOR_LABEL.test(label)) throw new TypeError("label must be 1-64 letters, digits, _ . @ or -");
    return this.#sessions.endOrganizationSessions(organizationId, { kind: "kill_switch", label });
  }

  async liftOrganizationSessions(organizationId: string): Promise<void> {
    this.#organizationCall(organizationId);
    await this.#sessions.liftOrganizationSessions(organizationId);
  }

  async organizationPolicy(
    organizationId: string,
  ): Promise<{ policy: SessionPolicy; source: "operator" | "configured" | "default" }> {
    this.#organizationCall(organizationId);
    return this.#sessions.organizationPolicy(organizationId);
  }

  async setOrganizationPolicy(organizationId: string, policy: SessionPolicy | null): Promise<void> {
    this.#organizationCall(organizationId);
    let checked: SessionPolicy | null;
    try {
      checked = validatePolicy(policy, "policy", true);
    } catch (err) {
      throw new TypeError((err as Error).message);
    }
    await this.#sessions.setOrganizationPolicy(organizationId, checked);
  }

  /** Checks an organization id and that the organizations' objects are bound. */
  #organizationCall(organizationId: string): void {
    if (!isOrganizationId(organizationId)) throw new TypeError("organizationId is not a valid organization id");
    if (!this.#sessions.hasOrganizations) throw new TypeError("this auth worker has no ORGANIZATIONS binding");
  }

  /**
   * One fixed-window check on the auth worker's `RateLimiterDO`, so consuming
   * workers share limits without a Durable Object binding of their own.
   * Keys are namespaced (`rl:svc:`) apart from the auth routes' own limits.
   */
  async checkRateLimit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.#serviceLimiter(key, limit, windowSeconds).check(key);
  }

  /**
   * `count` checks of one key at once, decided in order: what `AuthServiceClient` sends when a
   * worker's checks of one key were concurrent. They join this isolate's other checks of the key,
   * so the object is asked once per batch.
   */
  async checkRateLimitBatch(
    key: string,
    limit: number,
    windowSeconds: number,
    count: number,
  ): Promise<RateLimitDecision[]> {
    if (!Number.isInteger(count) || count < 1 || count > MAX_BATCH_COUNT) {
      throw new TypeError(`count must be an integer from 1 to ${MAX_BATCH_COUNT}`);
    }
    const limiter = this.#serviceLimiter(key, limit, windowSeconds);
    return Promise.all(Array.from({ length: count }, () => limiter.check(key)));
  }

  /** The limiter of `AuthService`'s checks, after checking the key and the bindings. */
  #serviceLimiter(key: string, limit: number, windowSeconds: number): DORateLimiter {
    if (typeof key !== "string" || key.length === 0 || key.length > 512)
      throw new TypeError("key must be a string of 1-512 characters");
    this.#assertConfigured();
    const namespace = authEnvOf(this.env).RATE_LIMITER;
    if (!namespace) throw new TypeError("this auth worker has no RATE_LIMITER binding");
    // The limiter validates limit and window (RateLimitError("invalid_config") names the bad value).
    try {
      return new DORateLimiter(new StatefulObjectClient(namespace), {
        limit,
        window: windowSeconds,
        prefix: "rl:svc:",
      });
    } catch (err) {
      throw new TypeError(err instanceof Error ? err.message : "invalid rate limit");
    }
  }

  /** Revokes every session of the user and closes every open tab. */
  async revokeUser(userId: string, actor?: RevocationActor): Promise<RevocationResult> {
    if (!isUserId(userId)) throw new TypeError("userId is not a valid user id");
    return this.#sessions.revokeUser(userId, checkedActor(actor, { kind: "admin", label: "service" }));
  }
}

const ACTOR_KINDS = new Set(["user", "admin", "provider", "policy", "kill_switch", "system"]);
const ACTOR_LABEL = /^[A-Za-z0-9_.@-]{1,64}$/;

/** A caller's actor, checked (it lands on the user's timeline), or the default. */
function checkedActor(actor: RevocationActor | undefined, fallback: RevocationActor): RevocationActor {
  if (actor === undefined || actor === null) return fallback;
  if (typeof actor !== "object" || !ACTOR_KINDS.has(actor.kind)) throw new TypeError("actor.kind is not a known kind");
  if (actor.label !== undefined && (typeof actor.label !== "string" || !ACTOR_LABEL.test(actor.label))) {
    throw new TypeError("actor.label must be 1-64 letters, digits, _ . @ or -");
  }
  return actor.label === undefined ? { kind: actor.kind } : { kind: actor.kind, label: actor.label };
}

/** `options.deviceSkipped` checked: absent or null is null, anything but a string is a `TypeError`. */
function deviceSkippedOf(options: ResolveOptions | undefined): string | null {
  if (options === undefined || options === null) return null;
  if (typeof options !== "object") throw new TypeError("options must be an object");
  const skipped = options.deviceSkipped;
  if (skipped === undefined || skipped === null) return null;
  if (typeof skipped !== "string") throw new TypeError("options.deviceSkipped must be a string or null");
  return skipped;
}
