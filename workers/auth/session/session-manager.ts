/**
 * @module
 * `SessionManager` (spec): server-side sessions kept in KV with a sliding idle expiry and an
 * absolute lifetime, identified by a signed cookie (`token.ts`). A short facade over one door per
 * feature (`lifecycle.ts`, `policy.ts`, `security-record.ts`, `organization-controls.ts`,
 * `provider-access.ts`, `device-binding.ts`; wired in `doors.ts`) that holds no logic: a change goes to its feature's door.
 * `resolveUser` never throws on any cookie; only a failing store surfaces, as a 503 `AuthError`.
 */
import type { ResolveOptions } from "../../../client-sdk/protocol/auth-service";
import { DBSC_HEADERS } from "../../../client-sdk/protocol/device-binding";
import type { SessionPolicy } from "../../../client-sdk/protocol/policy";
import type {
  RevocationActor as Actor,
  KnownDevice,
  RevocationReceipt as Receipt,
  SecurityEventDeliveries,
  SignalOutcome,
  TimelinePage,
} from "../../../client-sdk/protocol/security-record";
import type { RevocationResult as Revoked, SessionInfo } from "../../../durable-objects/user-sessions";
import type { HmacSigner } from "../crypto";
import type { AppUser, IdentityUser } from "../types";
import type { ResolvedSessionConfig, SessionManagerOptions } from "./config";
import type { BindingStatus } from "./device-binding";
import { type SessionDoors, sessionDoors } from "./doors";
import type { KVSessionStore, SessionRecord } from "./kv-session-store";
import { type ResolvedSession, requestMeta, SELF, type SignInFacts } from "./lifecycle";
import type { PolicySource } from "./policy";
import type { SessionMeta } from "./security-record";
import { sessionIdOf, sessionSetCookie } from "./token";
import type { UserDirectory } from "./user-directory";

export type { ResolvedSession, SignInFacts } from "./lifecycle";
export { REFUSED_GRACE_MS, type SessionMeta } from "./security-record";

/** Anything with a raw KV namespace (`KVStore` from `gatehouse-workers/bindings`), or the namespace itself. */
export type SessionKV = KVNamespace | { readonly raw: KVNamespace };

export class SessionManager {
  readonly store: KVSessionStore;
  /** Email → user id of the people who signed in here (the admin console's search). */
  readonly directory: UserDirectory;
  readonly config: ResolvedSessionConfig;
  /** HMAC signer over the session secret(s); other auth parts sign with a purpose prefix. */
  readonly signer: HmacSigner;
  readonly #doors: SessionDoors;

  constructor(kv: SessionKV, secret: string | readonly string[], options: SessionManagerOptions = {}) {
    const namespace = "raw" in kv && kv.raw ? kv.raw : (kv as KVNamespace);
    const doors = sessionDoors(namespace, secret, options, (cookie) => this.resolveCookieHeader(cookie));
    ({ config: this.config, store: this.store, directory: this.directory, signer: this.signer } = doors);
    this.#doors = doors;
  }

  get cookieName(): string {
    return this.config.cookieName;
  }

  // ---- lifecycle (lifecycle.ts) and the cookie (token.ts) ----------------------------------
  /** The signed-in user, or null for a missing, malformed, tampered, expired or deleted session. */
  async resolveUser(request: Request): Promise<AppUser | null> {
    return (await this.resolveSession(request))?.user ?? null;
  }

  /** Like `resolveUser`, with the public session id and stored record. */
  resolveSession(request: Request, seen?: SessionMeta): Promise<ResolvedSession | null> {
    return this.resolveCookieHeader(request.headers.get("Cookie"), seen ?? this.requestMeta(request), {
      deviceSkipped: request.headers.get(DBSC_HEADERS.skipped),
    });
  }

  /** What a request shows of its sender: the edge-set address, the User-Agent, and its location. */
  requestMeta(request: Request): SessionMeta {
    return requestMeta(request, this.config.location);
  }

  /**
   * `resolveSession` for a raw Cookie header (the RPC); a revoked cookie's use is told to its
   * timeline (with `seen`). `options.deviceSkipped` is the request's `Secure-Session-Skipped`: it only
   * words the timeline entry of a bound session refused for lack of its device proof.
   */
  async resolveCookieHeader(
    cookieHeader: string | null | undefined,
    seen: SessionMeta = {},
    options: ResolveOptions = {},
  ): Promise<ResolvedSession | null> {
    return this.#doors.lifecycle.resolve(cookieHeader, seen, { deviceSkipped: options.deviceSkipped ?? null });
  }

  /** The verified public session id carried by a Cookie header, or null. */
  async sessionIdFromCookieHeader(cookieHeader: string | null | undefined): Promise<string | null> {
    return sessionIdOf(this.signer, this.config.cookieName, cookieHeader);
  }

  /** Creates a session with a fresh id (no fixation). The response carries the Set-Cookie header; copy it onto your redirect. */
  async createSession(
    user: IdentityUser,
    organizationId?: string,
    meta: SessionMeta = {},
    signIn: SignInFacts = {},
  ): Promise<{ sessionId: string; response: Response; record: SessionRecord; newDevice: boolean }> {
    return this.#doors.lifecycle.create(user, organizationId, meta, signIn);
  }

  /** Deletes the session. The response clears the session cookie. Unknown ids are a no-op. */
  async destroySession(sessionId: string): Promise<Response> {
    return this.#doors.lifecycle.destroy(sessionId);
  }

  /** Set-Cookie value carrying a session cookie. */
  sessionCookie(cookieValue: string): string {
    return sessionSetCookie(this.config, cookieValue);
  }

  /** Set-Cookie value that deletes the session cookie. */
  clearCookie(): string {
    return sessionSetCookie(this.config, "", 0);
  }

  /** Every live session of a user (needs `userSessions`). */
  listSessions(userId: string): Promise<SessionInfo[]> {
    return this.#doors.lifecycle.list(userId);
  }

  /** Revokes one session by its public id (KV record, tombstone, open tabs); null when no such session is known here. */
  async revokeSession(sessionId: string, actor: Actor = SELF): Promise<Revoked | null> {
    return this.#doors.lifecycle.revoke(sessionId, actor);
  }

  /** Revokes every session of a user and closes every open tab. */
  async revokeUser(userId: string, actor: Actor = SELF): Promise<Revoked> {
    return this.#doors.lifecycle.revokeUser(userId, actor);
  }

  /** Revokes every session of a user except `keepSessionId` ("sign out everywhere else"). */
  async revokeOtherSessions(userId: string, keepSessionId: string, actor: Actor = SELF): Promise<Revoked> {
    return this.#doors.lifecycle.revokeOthers(userId, keepSessionId, actor);
  }

  /** Revokes one session of this user in their object (`revoked`: only an active one, else null; see `SessionLifecycle.revokeOf`). */
  async revokeSessionOf(
    userId: string,
    sessionId: string,
    reason: "logout" | "revoked" | "replaced" | "replaced_by_other_user" = "revoked",
    actor: Actor = SELF,
  ): Promise<Revoked | null> {
    return this.#doors.lifecycle.revokeOf(userId, sessionId, reason, actor);
  }

  // ---- device binding (device-binding.ts) --------------------------------------------------
  /** True when the deployment turned device binding on (`deviceBinding` is not `"off"`). */
  get deviceBinding(): boolean {
    return this.#doors.binding.enabled;
  }

  /** `Secure-Session-Registration` for a new session's answer; null when device binding is off. */
  deviceRegistrationHeader(userId: string, sessionId: string): Promise<string | null> {
    return this.#doors.binding.registrationHeader({ userId, sessionId });
  }

  /** Where the request's session stands with a role that must bind a device (the page `/auth/device-binding`). */
  deviceBindingStatus(request: Request): Promise<BindingStatus> {
    return this.#doors.binding.status(request.headers.get("Cookie"));
  }

  /** `POST /auth/dbsc/register`: binds the signed-in session to the key its proof shows. */
  registerDevice(request: Request): Promise<Response> {
    return this.#doors.binding.register(request);
  }

  /** `POST /auth/dbsc/refresh`: a new bound cookie for a proof by the bound key, else a challenge. */
  refreshDevice(request: Request): Promise<Response> {
    return this.#doors.binding.refresh(request);
  }

  // ---- security record (security-record.ts) ------------------------------------------------
  /** One page of the user's security timeline, newest first. */
  timeline(userId: string, options: { cursor?: string | null; limit?: number } = {}): Promise<TimelinePage> {
    return this.#doors.record.timeline(userId, options);
  }

  /** The devices and places the user signed in from within the retention window. */
  devices(userId: string): Promise<KnownDevice[]> {
    return this.#doors.record.devices(userId);
  }

  /** The latest receipts of a user's revocations, newest first (an operator's view). */
  receipts(userId: string, limit = 20): Promise<Receipt[]> {
    return this.#doors.record.receipts(userId, limit);
  }

  /** A user's security-event deliveries still to make and the latest attempts (an operator's view). */
  deliveries(userId: string, limit = 20): Promise<SecurityEventDeliveries> {
    return this.#doors.record.deliveries(userId, limit);
  }

  /** A revocation receipt by id (a user's `rcpt.u.…` or an organization's `rcpt.o.…`), or null. */
  receipt(id: string): Promise<Receipt | null> {
    return this.#doors.record.receipt(id);
  }

  /** Tells the user's timeline that a request carrying this session was locked out by a rate limit. */
  async recordLockout(session: ResolvedSession, family: string, retryAfterSeconds: number, ip?: string): Promise<void> {
    return this.#doors.record.recordLockout(session.record.userId, session.sessionId, family, retryAfterSeconds, ip);
  }

  /** A verified shared signal about this user arrived (issue 32): on their timeline (never thrown). */
  recordSignal(userId: string, issuer: string, event: string, outcome: SignalOutcome, setId: string): Promise<void> {
    return this.#doors.record.recordSignal(userId, issuer, event, outcome, setId);
  }

  /** A rate limit refused this request: tells its session's timeline, if any (throttled; never slides the session). */
  async reportLockout(request: Request, family: string, retryAfterSeconds: number): Promise<void> {
    return this.#doors.record.reportLockout(request, family, retryAfterSeconds);
  }

  // ---- provider access (provider-access.ts) ------------------------------------------------
  /** A fresh access token of the identity provider for this request's session (see `ProviderAccess.accessToken`). */
  async getAccessToken(request: Request): Promise<{ accessToken: string; expiresAt: number }> {
    return this.accessTokenFor(request.headers.get("Cookie"));
  }

  /** `getAccessToken` for a raw Cookie header (the service-binding RPC). */
  async accessTokenFor(cookieHeader: string | null | undefined): Promise<{ accessToken: string; expiresAt: number }> {
    return this.#doors.provider.accessToken(cookieHeader);
  }

  /** A single-use ticket for the live channel of the session in this Cookie header, or null (see live-ticket.ts). */
  async liveTicket(
    cookieHeader: string | null | undefined,
  ): Promise<{ ticket: string; userId: string; sessionId: string; expiresAt: number } | null> {
    return this.#doors.provider.liveTicket(cookieHeader);
  }

  // ---- organization controls (organization-controls.ts) ------------------------------------
  /** True when the per-organization objects are bound (kill switch, operator-set policy). */
  get hasOrganizations(): boolean {
    return this.#doors.organizations.bound;
  }

  /** An organization's kill switch: every session of every member issued before now ends. Answers the receipt. */
  async endOrganizationSessions(organizationId: string, actor: Actor): Promise<Receipt> {
    return this.#doors.organizations.endSessions(organizationId, actor);
  }

  /** Lifts an organization's kill switch for what comes next; ended sessions stay ended. */
  async liftOrganizationSessions(organizationId: string): Promise<void> {
    return this.#doors.organizations.lift(organizationId);
  }

  organizationEpoch(organizationId: string): Promise<number | null> {
    return this.#doors.organizations.epoch(organizationId);
  }

  /** The policy that applies to sign-ins into the organization: an operator's, else the configured one. */
  async organizationPolicy(organizationId: string): Promise<{ policy: SessionPolicy; source: PolicySource }> {
    return this.#doors.organizations.policy(organizationId);
  }

  /** Sets (or with null clears) an operator's policy for the organization (checked: `validatePolicy`). */
  setOrganizationPolicy(organizationId: string, policy: SessionPolicy | null): Promise<void> {
    return this.#doors.organizations.setPolicy(organizationId, policy);
  }
}
