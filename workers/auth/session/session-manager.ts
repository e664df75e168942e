/**
 * @module
 * `SessionManager` (spec): creates, resolves and destroys server-side
 * sessions kept in KV with a sliding idle expiry and an absolute lifetime,
 * identified by a signed cookie. `resolveUser` never throws on any cookie;
 * only a failing store surfaces, as a 503 `AuthError` (fail closed).
 */

import { withDeadline } from "../../../client-sdk/core/deadline";
import type { SessionPolicy } from "../../../client-sdk/protocol/policy";
import type {
  KnownDevice,
  RevocationActor,
  RevocationReceipt,
  SecurityEventDeliveries,
  SessionLocation,
  TimelinePage,
} from "../../../client-sdk/protocol/security-record";
import { organizationReceiptOwner } from "../../../durable-objects/organization-sessions";
import { type RevocationResult, receiptOwner, type SessionInfo } from "../../../durable-objects/user-sessions";
import { buildSetCookie, parseCookie, parseJwtExpiry } from "../cookies";
import { HmacSigner } from "../crypto";
import { AuthError } from "../errors";
import type { Impersonator } from "../identity/identity-client";
import { isSessionId } from "../ids";
import type { AppUser, IdentityUser } from "../types";
import {
  type ResolvedSessionConfig,
  resolveSessionConfig,
  type SessionHooks,
  type SessionManagerOptions,
} from "./config";
import { KVSessionStore, type SessionRecord } from "./kv-session-store";
import { signLiveTicket } from "./live-ticket";
import { OrganizationEpochs } from "./org-epochs";
import { OrganizationObjects } from "./organizations";
import { ReportThrottle } from "./report-throttle";
import { SessionObjects } from "./session-objects";
import { storeCall } from "./store-call";
import { issueSessionToken, verifySessionToken } from "./token";
import { describeUserAgent, deviceClass } from "./user-agent";
import { UserDirectory } from "./user-directory";

/** A resolved session: the public id, the user, and the stored record. */
export interface ResolvedSession {
  sessionId: string;
  user: AppUser;
  record: SessionRecord;
  /** When the person last actively authenticated (ms); sessions from before it was kept: their creation. */
  authenticatedAt: number;
  /** Set when an operator is signed in as this person. */
  impersonator: Impersonator | null;
}

/** Optional request facts stored with a session (shown on "your sessions" pages and the timeline). */
export interface SessionMeta {
  userAgent?: string;
  ip?: string;
  /** Where the request came from (the auth worker reads it from `request.cf`, or its location source). */
  location?: SessionLocation;
}

/** What the sign-in itself told us, besides who: the provider's tokens, when the person authenticated, an impersonator. */
export interface SignInFacts {
  /** Kept in the user's session object only (never in KV or a cookie): `getAccessToken` refreshes with them. */
  tokens?: { accessToken?: string; refreshToken?: string };
  /** When the person actively authenticated (ms, the access token's `auth_time`). Default: now. */
  authenticatedAt?: number;
  /** An operator signed in as this person: the session says so everywhere and ends after `impersonationTimeout`. */
  impersonator?: Impersonator;
}

/** The person acting when no one else is named: the session's own user. */
const SELF: RevocationActor = { kind: "user" };
/** An isolate tells a user's object of a refused revoked cookie at most this often per session. */

/** Anything with a raw KV namespace (`KVStore` from `gatehouse-workers`), or the namespace itself. */
export type SessionKV = KVNamespace | { readonly raw: KVNamespace };

const RECENT_REFRESH_LIMIT = 10_000;
/** A revoked session's cookie used within this long after the revocation is not reported. */
export const REFUSED_GRACE_MS = 2 * 60 * 1000;

export class SessionManager {
  readonly store: KVSessionStore;
  /** Email → user id of the people who signed in here (the admin console's search). */
  readonly directory: UserDirectory;
  readonly config: ResolvedSessionConfig;
  /** HMAC signer over the session secret(s); other auth parts sign with a purpose prefix. */
  readonly signer: HmacSigner;
  /** Sessions this isolate slid recently: avoids two writes to one key in the same second. */
  readonly #recentRefresh = new Map<string, number>();
  /** The per-user session objects, which own revocation (absent without `userSessions`). */
  readonly #objects: SessionObjects | undefined;
  /** The per-organization objects: member index, kill switch, operator-set policy (optional). */
  readonly #organizations: OrganizationObjects | undefined;
  /** The organizations' published kill-switch epochs, as this isolate last read them. */
  readonly #epochs: OrganizationEpochs;
  /** What this isolate told timelines lately (refused use, lockouts): once per key per 10 minutes. */
  readonly #reports = new ReportThrottle();
  readonly #hooks: SessionHooks;

  constructor(kv: SessionKV, secret: string | readonly string[], options: SessionManagerOptions = {}) {
    this.config = resolveSessionConfig(options);
    this.#objects = options.userSessions && new SessionObjects(options.userSessions, this.config.clock);
    this.#organizations = options.organizations && new OrganizationObjects(options.organizations);
    this.#hooks = options.hooks ?? {};
    const namespace = "raw" in kv && kv.raw ? kv.raw : (kv as KVNamespace);
    this.store = new KVSessionStore(namespace, this.config.clock);
    this.#epochs = new OrganizationEpochs(namespace, this.config.clock);
    this.directory = new UserDirectory(namespace, this.config.clock);
    this.signer = new HmacSigner(secret);
  }

  get cookieName(): string {
    return this.config.cookieName;
  }

  /** The signed-in user, or null for a missing, malformed, tampered, expired or deleted session. */
  async resolveUser(request: Request): Promise<AppUser | null> {
    return (await this.resolveSession(request))?.user ?? null;
  }

  /** Like `resolveUser`, with the public session id and stored record. */
  resolveSession(request: Request, seen?: SessionMeta): Promise<ResolvedSession | null> {
    return this.resolveCookieHeader(request.headers.get("Cookie"), seen ?? this.requestMeta(request));
  }

  /** What a request shows of its sender: the edge-set address, the User-Agent, and its location. */
  requestMeta(request: Request): SessionMeta {
    const ip = request.headers.get("CF-Connecting-IP");
    const userAgent = request.headers.get("User-Agent");
    const location = this.config.location(request);
    return { ...(ip ? { ip } : {}), ...(userAgent ? { userAgent } : {}), ...(location ? { location } : {}) };
  }

  /**
   * Resolves a session from a raw Cookie header (used by the service-binding RPC). A revoked
   * session's cookie is refused, and told to its user's timeline (with `seen`, what the request
   * showed); a session issued before one of its organizations' kill switch is refused too.
   */
  async resolveCookieHeader(
    cookieHeader: string | null | undefined,
    seen: SessionMeta = {},
  ): Promise<ResolvedSession | null> {
    const sessionId = await this.sessionIdFromCookieHeader(cookieHeader);
    if (!sessionId) return null;
    const found = await storeCall(() => this.store.lookup(sessionId));
    if (found && "revokedFrom" in found) {
      await this.#reportRefused(found.revokedFrom, found.revokedAt, sessionId, seen);
      return null;
    }
    const record = found?.record;
    if (!record || record.id !== sessionId) return null;
    const now = this.config.clock();
    if (now >= record.idleExpiresAt || now >= record.absoluteExpiresAt) return null;
    // Synchronous when every epoch is cached (the common case): no await, no round trip.
    const refused = this.#epochs.refuses(record);
    if (refused === true || (refused !== false && (await refused))) return null;
    if (this.config.revocation === "strict" && !(await this.#objects!.isActive(record.userId, record.id))) return null;
    if (now - record.lastSeenAt >= this.config.refreshInterval * 1000) await this.#slide(record, now);
    return {
      sessionId,
      user: toAppUser(record),
      record,
      authenticatedAt: record.authenticatedAt ?? record.createdAt,
      impersonator: record.impersonator ?? null,
    };
  }

  /** The verified public session id carried by a Cookie header, or null. */
  async sessionIdFromCookieHeader(cookieHeader: string | null | undefined): Promise<string | null> {
    if (!cookieHeader) return null;
    const value = parseCookie(cookieHeader)[this.config.cookieName];
    if (!value) return null;
    return verifySessionToken(this.signer, value);
  }

  /**
   * Creates a session with a fresh id (never reusing one: no fixation).
   * The response carries the Set-Cookie header; copy it onto your redirect.
   */
  async createSession(
    user: IdentityUser,
    organizationId?: string,
    meta: SessionMeta = {},
    signIn: SignInFacts = {},
  ): Promise<{ sessionId: string; response: Response; record: SessionRecord; newDevice: boolean }> {
    // The tenant of a session is never taken on trust: it must be one of the user's memberships.
    if (organizationId !== undefined && !user.memberships.some((m) => m.organizationId === organizationId)) {
      throw new AuthError("organization_not_allowed", {
        status: 403,
        message: "You are not a member of the organization this sign-in asked for.",
      });
    }
    const now = this.config.clock();
    const { cookieValue, sessionId } = await issueSessionToken(this.signer, this.config.random);
    // An operator's session as someone else is short-lived whatever the usual lifetime.
    const lifetime = signIn.impersonator
      ? Math.min(this.config.absoluteTimeout, this.config.impersonationTimeout)
      : this.config.absoluteTimeout;
    const absoluteExpiresAt = now + lifetime * 1000;
    // A caller's own sign-in (library mode) is now; the callback always passes the provider's word.
    const authenticatedAt =
      typeof signIn.authenticatedAt === "number" && Number.isFinite(signIn.authenticatedAt)
        ? Math.max(0, Math.min(signIn.authenticatedAt, now))
        : now;
    const record: SessionRecord = {
      v: 1,
      id: sessionId,
      userId: user.id,
      email: user.email,
      firstName: user.firstName ?? "",
      lastName: user.lastName ?? "",
      memberships: user.memberships.map((m) => ({
        organizationId: m.organizationId,
        organizationSlug: m.organizationSlug,
        role: m.role,
      })),
      ...(organizationId ? { organizationId } : {}),
      ...(user.providerSessionId ? { providerSessionId: user.providerSessionId } : {}),
      createdAt: now,
      lastSeenAt: now,
      idleExpiresAt: Math.min(now + this.config.idleTimeout * 1000, absoluteExpiresAt),
      absoluteExpiresAt,
      ...(meta.userAgent ? { userAgent: meta.userAgent.slice(0, 256) } : {}),
      ...(meta.ip ? { ip: meta.ip.slice(0, 64) } : {}),
      authenticatedAt,
      ...(signIn.impersonator
        ? {
            impersonator: {
              email: String(signIn.impersonator.email).slice(0, 320),
              reason: signIn.impersonator.reason === null ? null : String(signIn.impersonator.reason).slice(0, 500),
            },
          }
        : {}),
    };
    const policy = await this.#policyFor([
      ...new Set([...(organizationId ? [organizationId] : []), ...record.memberships.map((m) => m.organizationId)]),
    ]);
    try {
      await this.store.put(record);
    } catch (cause) {
      throw new AuthError("session_store_unavailable", { status: 503, message: "Could not save the session", cause });
    }
    let newDevice = false;
    if (this.#objects) {
      const [result] = await Promise.all([
        this.#objects
          .register(user.id, {
            id: sessionId,
            createdAt: record.createdAt,
            lastSeenAt: record.lastSeenAt,
            expiresAt: record.idleExpiresAt,
            absoluteExpiresAt: record.absoluteExpiresAt,
            ...(record.organizationId ? { organizationId: record.organizationId } : {}),
            ...(record.userAgent ? { userAgent: record.userAgent } : {}),
            ...(record.ip ? { ip: record.ip } : {}),
            ...(record.providerSessionId ? { providerSessionId: record.providerSessionId } : {}),
            device: describeUserAgent(record.userAgent),
            deviceClass: deviceClass(record.userAgent),
            ...(meta.location ? { location: meta.location } : {}),
            ...(policy.maxSessions !== null ? { policy } : {}),
            ...(this.config.timeline ? {} : { record: false }),
            ...(signIn.tokens?.refreshToken || signIn.tokens?.accessToken ? { tokens: tokensOf(signIn.tokens) } : {}),
            ...(record.impersonator ? { impersonator: record.impersonator } : {}),
          })
          .catch((cause: unknown) => cause as Error),
        // The member index of each organization (best effort: the published epoch covers a miss).
        this.#organizations?.addMember(
          user.id,
          record.memberships.map((m) => m.organizationId),
        ),
        // The console finds people by email (best effort: a miss only means a search by id).
        this.directory.note(user.id, user.email).catch((cause: unknown) => {
          console.error(
            "gatehouse: could not note the user in the directory",
            cause instanceof Error ? cause.name : "",
          );
        }),
      ]);
      if (result instanceof Error || !result.registered) {
        await this.store.delete(sessionId).catch(() => {});
        if (!(result instanceof Error) && result.refusedBecause === "session_limit") {
          throw new AuthError("session_limit_reached", {
            status: 403,
            message: "You are signed in on as many devices as your organization allows: sign out on one of them first.",
          });
        }
        const cause = result instanceof Error ? result : new Error("session id was revoked before it was registered");
        throw new AuthError("session_store_unavailable", { status: 503, message: "Could not save the session", cause });
      }
      newDevice = result.newDevice === true;
    }
    const response = new Response(null, { status: 204 });
    response.headers.append("Set-Cookie", this.sessionCookie(cookieValue));
    await this.#notify("onSignIn", {
      userId: user.id,
      sessionId,
      ...(record.organizationId ? { organizationId: record.organizationId } : {}),
    });
    return { sessionId, response, record, newDevice };
  }

  /** Deletes the session. The response clears the session cookie. Unknown ids are a no-op. */
  async destroySession(sessionId: string): Promise<Response> {
    if (isSessionId(sessionId)) {
      this.#recentRefresh.delete(sessionId);
      await this.#end(sessionId, "logout");
    }
    const response = new Response(null, { status: 204 });
    response.headers.append("Set-Cookie", this.clearCookie());
    return response;
  }

  /** Set-Cookie value carrying a session cookie. */
  sessionCookie(cookieValue: string): string {
    return buildSetCookie(this.config.cookieName, cookieValue, {
      path: "/",
      httpOnly: true,
      secure: this.config.secure,
      sameSite: this.config.sameSite,
      maxAge: this.config.absoluteTimeout,
      ...(this.config.domain ? { domain: this.config.domain } : {}),
    });
  }

  /** Set-Cookie value that deletes the session cookie. */
  clearCookie(): string {
    return buildSetCookie(this.config.cookieName, "", {
      path: "/",
      httpOnly: true,
      secure: this.config.secure,
      sameSite: this.config.sameSite,
      maxAge: 0,
      ...(this.config.domain ? { domain: this.config.domain } : {}),
    });
  }

  /** Every live session of a user (needs `userSessions`). */
  listSessions(userId: string): Promise<SessionInfo[]> {
    return this.#requireObjects().list(userId);
  }

  /**
   * Revokes one session by its public id: KV record, tombstone, open tabs.
   * Finds the owner through the KV record; returns null when no such session is known here.
   */
  async revokeSession(sessionId: string, actor: RevocationActor = SELF): Promise<RevocationResult | null> {
    if (!isSessionId(sessionId)) return null;
    const record = await storeCall(() => this.store.get(sessionId));
    if (!record) return null;
    this.#recentRefresh.delete(sessionId);
    const result = await this.#requireObjects().revoke(record.userId, sessionId, "revoked", actor);
    await this.#revoked(record.userId, "session", result, sessionId);
    return result;
  }

  /** Revokes every session of a user and closes every open tab. */
  async revokeUser(userId: string, actor: RevocationActor = SELF): Promise<RevocationResult> {
    const result = await this.#requireObjects().revokeAll(userId, actor);
    await this.#revoked(userId, "all", result);
    return result;
  }

  /** Revokes every session of a user except `keepSessionId` ("sign out everywhere else"). */
  async revokeOtherSessions(
    userId: string,
    keepSessionId: string,
    actor: RevocationActor = SELF,
  ): Promise<RevocationResult> {
    const result = await this.#requireObjects().revokeOthers(userId, keepSessionId, actor);
    await this.#revoked(userId, "others", result);
    return result;
  }

  /**
   * Revokes one session of this user, asking only this user's object (a session of someone else is
   * simply not there): `"logout"` for the request's own session, `"replaced"` /
   * `"replaced_by_other_user"` for the session a new sign-in in the same browser takes over,
   * `"revoked"` for another one, which must be active (else null; checked and revoked in one call
   * to the object). Failures map to 503
   * `session_store_unavailable` like every call here.
   */
  async revokeSessionOf(
    userId: string,
    sessionId: string,
    reason: "logout" | "revoked" | "replaced" | "replaced_by_other_user" = "revoked",
    actor: RevocationActor = SELF,
  ): Promise<RevocationResult | null> {
    const objects = this.#requireObjects();
    this.#recentRefresh.delete(sessionId);
    if (reason !== "revoked") {
      const result = await objects.revoke(userId, sessionId, reason, actor);
      await this.#notify("onSignOut", { userId, sessionId });
      return result;
    }
    const result = await objects.revokeActive(userId, sessionId, actor);
    if (result) await this.#revoked(userId, "session", result, sessionId);
    return result;
  }

  // ---- the user's security record and the organizations' controls --------------------------

  /** True when the per-organization objects are bound (kill switch, operator-set policy). */
  get hasOrganizations(): boolean {
    return this.#organizations !== undefined;
  }

  /** One page of the user's security timeline, newest first. */
  timeline(userId: string, options: { cursor?: string | null; limit?: number } = {}): Promise<TimelinePage> {
    return this.#requireObjects().timeline(userId, options);
  }

  /** The devices and places the user signed in from within the retention window. */
  devices(userId: string): Promise<KnownDevice[]> {
    return this.#requireObjects().devices(userId);
  }

  /** The latest receipts of a user's revocations, newest first (an operator's view). */
  receipts(userId: string, limit = 20): Promise<RevocationReceipt[]> {
    return this.#requireObjects().receipts(userId, limit);
  }

  /** A user's security-event deliveries still to make and the latest attempts (an operator's view). */
  deliveries(userId: string, limit = 20): Promise<SecurityEventDeliveries> {
    return this.#requireObjects().deliveries(userId, limit);
  }

  /** A revocation receipt by id (a user's `rcpt.u.…` or an organization's `rcpt.o.…`), or null. */
  receipt(id: string): Promise<RevocationReceipt | null> {
    const userId = receiptOwner(id);
    if (userId !== null) return this.#requireObjects().receipt(userId, id);
    const organizationId = organizationReceiptOwner(id);
    // Without the organizations' objects no organization receipt can exist here: unknown, not a failure.
    if (organizationId !== null && this.#organizations) return this.#organizations.receipt(organizationId, id);
    return Promise.resolve(null);
  }

  /**
   * A fresh access token of the identity provider for the session of this request (to call the
   * provider's APIs, or your own that trust it). The refresh token never leaves the user's session
   * object, and refreshing is one at a time per session there: many tabs and isolates asking at
   * once wait for one refresh and share its result. Throws `unauthenticated` (401) without a
   * session, `reauthentication_required` (401) when the provider refused the token (or a refresh
   * was cut short), `no_provider_tokens` (409) when the sign-in gave none, `refresh_unsupported`
   * (501), `provider_unavailable` (502).
   */
  async getAccessToken(request: Request): Promise<{ accessToken: string; expiresAt: number }> {
    return this.accessTokenFor(request.headers.get("Cookie"));
  }

  /** `getAccessToken` for a raw Cookie header (the service-binding RPC). */
  async accessTokenFor(cookieHeader: string | null | undefined): Promise<{ accessToken: string; expiresAt: number }> {
    const session = await this.resolveCookieHeader(cookieHeader);
    if (!session) throw new AuthError("unauthenticated", { status: 401, message: "Sign in first." });
    if (!this.#objects) {
      throw new AuthError("no_provider_tokens", { status: 409, message: "This worker keeps no provider tokens." });
    }
    const answer = await this.#objects.accessToken(session.user.id, session.sessionId);
    if (answer.ok) return { accessToken: answer.accessToken, expiresAt: answer.expiresAt };
    throw (ACCESS_TOKEN_ERRORS[answer.reason] ?? ACCESS_TOKEN_ERRORS.provider_unavailable!)();
  }

  /**
   * A ticket for the live channel of the session in this Cookie header (for a page of a consuming
   * app on another site, whose tab cannot send the cookie to the channel): single-use, valid for
   * two minutes, bound to that session, signed with its user (see live-ticket.ts). Null without an active session or without session objects.
   */
  async liveTicket(
    cookieHeader: string | null | undefined,
  ): Promise<{ ticket: string; userId: string; sessionId: string; expiresAt: number } | null> {
    if (!this.#objects) return null;
    const session = await this.resolveCookieHeader(cookieHeader);
    if (!session) return null;
    const minted = await this.#objects.mintTicket(session.user.id, session.sessionId);
    if (!minted) return null;
    const ticket = await signLiveTicket(this.signer, session.user.id, minted);
    return { ticket, expiresAt: minted.expiresAt, userId: session.user.id, sessionId: session.sessionId };
  }

  /** Tells the user's timeline that a request carrying this session was locked out by a rate limit. */
  async recordLockout(session: ResolvedSession, family: string, retryAfterSeconds: number, ip?: string): Promise<void> {
    await this.#objects?.recordLockout(session.record.userId, session.sessionId, family, retryAfterSeconds, ip);
  }

  /**
   * A rate limit refused this request: when it carries a session (signed cookie, record still in
   * KV), tell its user's timeline. At most once per session and family per isolate per 10 minutes;
   * never slides or otherwise touches the session.
   */
  async reportLockout(request: Request, family: string, retryAfterSeconds: number): Promise<void> {
    if (!this.#objects) return;
    const sessionId = await this.sessionIdFromCookieHeader(request.headers.get("Cookie"));
    if (!sessionId || !this.#reports.admit(`lockout:${sessionId}:${family}`, this.config.clock())) return;
    const record = await storeCall(() => this.store.get(sessionId));
    if (!record || record.id !== sessionId) return;
    const ip = request.headers.get("CF-Connecting-IP")?.slice(0, 64);
    await this.#objects.recordLockout(record.userId, sessionId, family, retryAfterSeconds, ip);
  }

  /**
   * An organization's kill switch: every session of every member issued before now ends, now and
   * wherever it is resolved (see `OrganizationSessions.endSessions`). Answers the receipt.
   */
  async endOrganizationSessions(organizationId: string, actor: RevocationActor): Promise<RevocationReceipt> {
    const receipt = await this.#requireOrganizations().endSessions(organizationId, actor);
    this.#epochs.forget(organizationId);
    return receipt;
  }

  /** Lifts an organization's kill switch for what comes next; ended sessions stay ended. */
  async liftOrganizationSessions(organizationId: string): Promise<void> {
    await this.#requireOrganizations().lift(organizationId);
    this.#epochs.forget(organizationId);
  }

  organizationEpoch(organizationId: string): Promise<number | null> {
    return this.#requireOrganizations().epoch(organizationId);
  }

  /** The policy that applies to sign-ins into the organization: an operator's, else the configured one. */
  async organizationPolicy(
    organizationId: string,
  ): Promise<{ policy: SessionPolicy; source: "operator" | "configured" | "default" }> {
    const set = await this.#requireOrganizations().policy(organizationId);
    if (set) return { policy: set, source: "operator" };
    const configured = this.config.organizationPolicies.get(organizationId);
    return configured
      ? { policy: configured, source: "configured" }
      : { policy: this.config.sessionPolicy, source: "default" };
  }

  /** Sets (or with null clears) an operator's policy for the organization. */
  setOrganizationPolicy(organizationId: string, policy: SessionPolicy | null): Promise<void> {
    return this.#requireOrganizations().setPolicy(organizationId, policy);
  }

  /**
   * The policy of a sign-in by a member of `organizationIds`: for each, the operator's (if the
   * objects are bound), else the configured one, else the default; then the strictest of those.
   * Every session carries all its person's memberships, so signing in without an organization (or
   * into another one) must not escape an organization's cap. No memberships: the default.
   */
  async #policyFor(organizationIds: readonly string[]): Promise<SessionPolicy> {
    if (organizationIds.length === 0) return this.config.sessionPolicy;
    const policies = await Promise.all(
      organizationIds.map(async (id) => {
        const set = this.#organizations ? await this.#organizations.policyOrNull(id) : null;
        return set ?? this.config.organizationPolicies.get(id) ?? this.config.sessionPolicy;
      }),
    );
    return policies.reduce(stricter);
  }

  /** Tells the owner's timeline a revoked session's cookie was used, at most once per session per isolate per 10 minutes. */
  async #reportRefused(userId: string, revokedAt: number, sessionId: string, seen: SessionMeta): Promise<void> {
    const now = this.config.clock();
    // The revoked browser's own last requests (its open tab leaving, a page still polling) are not
    // an intruder: only a use later than the grace period is.
    if (now - revokedAt < REFUSED_GRACE_MS) return;
    if (!this.#objects || !this.#reports.admit(`refused:${sessionId}`, now)) return;
    await this.#objects.recordRefused(userId, sessionId, {
      ...(seen.ip ? { ip: seen.ip.slice(0, 64) } : {}),
      ...(seen.userAgent ? { device: describeUserAgent(seen.userAgent) } : {}),
      ...(seen.location ? { location: seen.location } : {}),
    });
  }

  #requireOrganizations(): OrganizationObjects {
    if (!this.#organizations) {
      throw new AuthError("config_missing", {
        status: 500,
        message: "This needs the organizations Durable Object namespace (SessionManager option `organizations`)",
      });
    }
    return this.#organizations;
  }

  async #end(sessionId: string, reason: "logout" | "revoked"): Promise<void> {
    const record = await storeCall(() => this.store.get(sessionId));
    if (record && this.#objects) await this.#objects.revoke(record.userId, sessionId, reason, SELF);
    else await storeCall(() => this.store.delete(sessionId));
    if (record) await this.#notify("onSignOut", { userId: record.userId, sessionId });
  }

  #revoked(
    userId: string,
    scope: "session" | "others" | "all",
    result: RevocationResult,
    sessionId?: string,
  ): Promise<void> {
    return this.#notify("onRevoke", { userId, scope, revoked: result.revoked, ...(sessionId ? { sessionId } : {}) });
  }

  /**
   * Runs one hook after the change is committed. Its failure is logged (message only) and never
   * reaches the request; one that takes longer than `hookTimeoutMs` is left running and logged,
   * so a slow observer never holds up a sign-in, a sign-out or a revocation.
   */
  async #notify<K extends keyof SessionHooks>(
    name: K,
    event: Parameters<NonNullable<SessionHooks[K]>>[0],
  ): Promise<void> {
    const hook = this.#hooks[name] as ((e: typeof event) => void | Promise<void>) | undefined;
    if (!hook) return;
    try {
      const ran = new Promise<void>((resolve) => resolve(hook.call(this.#hooks, event)));
      await withDeadline(ran, this.config.hookTimeoutMs, () => new HookTimeout());
    } catch (err) {
      const why =
        err instanceof HookTimeout ? `took longer than ${this.config.hookTimeoutMs} ms; not waited for` : "failed";
      console.error(
        `gatehouse: ${name} hook ${why}`,
        err instanceof HookTimeout ? "" : err instanceof Error ? err.message : err,
      );
    }
  }

  #requireObjects(): SessionObjects {
    if (!this.#objects) {
      throw new AuthError("config_missing", {
        status: 500,
        message: "Session revocation needs the USER_SESSIONS Durable Object binding",
      });
    }
    return this.#objects;
  }

  async #slide(record: SessionRecord, now: number): Promise<void> {
    const last = this.#recentRefresh.get(record.id);
    if (last !== undefined && now - last < this.config.refreshInterval * 1000) return;
    if (this.#recentRefresh.size >= RECENT_REFRESH_LIMIT) this.#recentRefresh.clear();
    this.#recentRefresh.set(record.id, now);
    record.lastSeenAt = now;
    record.idleExpiresAt = Math.min(now + this.config.idleTimeout * 1000, record.absoluteExpiresAt);
    try {
      await this.store.put(record);
      // After the write, not beside it: if the session was revoked meanwhile, the object
      // sees the tombstone and deletes the record this write may have brought back.
      if (this.#objects) await this.#objects.touch(record.userId, record.id, now, record.idleExpiresAt);
    } catch (err) {
      // Sliding is best effort: a failed write (e.g. KV's 1 write/s/key limit) must not fail the request.
      console.warn("gatehouse: session refresh write failed", err instanceof Error ? err.message : err);
    }
  }
}

export function toAppUser(record: SessionRecord): AppUser {
  return {
    id: record.userId,
    email: record.email,
    firstName: record.firstName,
    lastName: record.lastName,
    ...(record.organizationId ? { organizationId: record.organizationId } : {}),
    memberships: record.memberships.map((m) => ({ ...m })),
  };
}

/** A hook that outran its deadline. */
class HookTimeout extends Error {}

/** The stricter of two policies: the lower cap (none is the loosest); on a tie, refusing new sign-ins. */
function stricter(a: SessionPolicy, b: SessionPolicy): SessionPolicy {
  const capA = a.maxSessions ?? Number.POSITIVE_INFINITY;
  const capB = b.maxSessions ?? Number.POSITIVE_INFINITY;
  if (capA !== capB) return capA < capB ? a : b;
  return a.onLimit === "refuse-new" ? a : b;
}

/** The provider's tokens as the session object keeps them, with the access token's expiry read from it. */
function tokensOf(tokens: { accessToken?: string; refreshToken?: string }): {
  accessToken?: string;
  accessTokenExpiresAt?: number;
  refreshToken?: string;
} {
  const exp = tokens.accessToken ? parseJwtExpiry(tokens.accessToken) : null;
  return {
    ...(tokens.accessToken ? { accessToken: tokens.accessToken } : {}),
    ...(exp !== null ? { accessTokenExpiresAt: exp * 1000 } : {}),
    ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
  };
}

/** What each refusal of `UserSessions.accessToken` means to a caller. */
const ACCESS_TOKEN_ERRORS: Record<string, () => AuthError> = {
  session_inactive: () => new AuthError("unauthenticated", { status: 401, message: "Sign in first." }),
  reauthentication_required: () =>
    new AuthError("reauthentication_required", {
      status: 401,
      message: "Your sign-in with the identity provider has to be renewed: please sign in again.",
    }),
  no_refresh_token: () =>
    new AuthError("no_provider_tokens", { status: 409, message: "This session holds no identity-provider tokens." }),
  refresh_unsupported: () =>
    new AuthError("refresh_unsupported", { status: 501, message: "The identity client cannot refresh tokens." }),
  provider_unavailable: () =>
    new AuthError("provider_unavailable", {
      status: 502,
      message: "The identity provider could not renew the sign-in right now. Please try again shortly.",
    }),
};
