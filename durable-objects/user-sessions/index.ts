/**
 * @module
 * `UserSessions`: one Durable Object per user (named by user id, SQLite storage, partyserver with
 * hibernation). A thin RPC class over its features, one room each: `lifecycle` (the mirror of every
 * live session, revocation), `policy` (the session cap, the expiry of a use), `security-record`
 * (timeline, devices, receipts, deliveries), `organization-controls` (kill switches, provider
 * events), `provider-access` (provider tokens, live tickets), `device-binding` (DBSC keys and
 * challenges), the live channel (`live.ts`) and the
 * one alarm (`alarms.ts`). Its RPC methods are the API; `fetch` only accepts WebSocket upgrades the
 * auth worker authenticated. Features sit behind `#private` fields so RPC cannot reach them.
 */
import { type Connection, type ConnectionContext, Server } from "partyserver";
import {
  type BoundKey,
  type ChallengePurpose,
  type DbscAlgorithm,
  type DbscPublicJwk,
  DEVICE_REFRESH_FAILURES,
  type DeviceRefreshFailure,
  SKIPPED_REASONS,
} from "../../client-sdk/protocol/device-binding";
import type { RegisterResult } from "../../client-sdk/protocol/lifecycle";
import type {
  KnownDevice,
  RevocationActor,
  RevocationReceipt,
  SecurityEventDeliveries,
  SessionLocation,
  SignalOutcome,
  TimelinePage,
} from "../../client-sdk/protocol/security-record";
import { SIGNAL_OUTCOMES } from "../../client-sdk/protocol/security-record";
import { objectNow } from "../clock";
import { runAlarm } from "./alarms";
import type { AppConnections } from "./app-connections";
import type { ServerEnv } from "./context";
import type { BindOutcome } from "./device-binding";
import { buildFeatures, type Features, type ObjectStats, objectStats } from "./features";
import { answerPing, closeOnError, joinedOf, joinSocket, liveTags, serveLive } from "./live";
import type { AccessTokenAnswer, TokenRefresher } from "./provider-access";
import {
  migrate,
  type ProviderEvent,
  type ProviderEventResult,
  type RevocationReason,
  type RevocationResult,
  type SessionInfo,
  type SessionMirror,
} from "./schema";
import { DEFAULT_RETENTION_MS, REFUSAL_REASONS, type RefusalReason, type SkippedDetail } from "./security-record";

export { CONTINUATION_GUARD_MS } from "./alarms";
export { APP_NAME, type AppConnection, type AppConnections, checkApps } from "./app-connections";
export type { UserSessionsEnv } from "./context";
export type { BindOutcome } from "./device-binding";
export type { ObjectStats } from "./features";
export { RECORD_HEADER, SESSION_HEADER, TICKET_HEADER } from "./live";
export { type Membership, PROCESSED_EVENT_TTL_MS } from "./organization-controls";
export {
  ACCESS_TOKEN_SKEW_MS,
  type AccessTokenAnswer,
  type RefreshTokens,
  TICKET_TTL_MS,
  type TokenRefresher,
} from "./provider-access";
export type {
  DirectoryUserEventType,
  MembershipEventType,
  ProviderEvent,
  ProviderEventResult,
  RevocationReason,
  RevocationResult,
  SessionInfo,
  SessionMirror,
} from "./schema";
export { ATTEMPT_THROTTLE_MS, type RefusalReason, receiptOwner, type SkippedDetail } from "./security-record";

export class UserSessions extends Server<ServerEnv> {
  static override options = { hibernate: true };

  /**
   * The binding name of the session KV namespace (default `SESSIONS`). `createAuthWorker({ bindings:
   * { sessions } })` sets it; a host's own worker sets it once, or subclasses: `class People extends
   * UserSessions { static override sessionsBinding = "AUTH_KV" }`.
   */
  static sessionsBinding = "SESSIONS";
  /** The binding name of the Queue security events go to when it is bound (default `SECURITY_EVENTS`). */
  static securityEventsQueue = "SECURITY_EVENTS";
  /** How long timeline events, known devices and receipts are kept (default 90 days). */
  static retentionMs = DEFAULT_RETENTION_MS;
  /** Renews the identity provider's tokens (`createAuthWorker` sets it from the identity client); null: cannot. */
  static refreshTokens: TokenRefresher | null = null;
  /**
   * The apps told when sessions end (`createAuthWorker({ apps })` sets it): by name, the service
   * binding to each app's `GatehouseRevocations` entrypoint. Default none. Checked when an object starts.
   */
  static apps: AppConnections = {};
  /**
   * The binding of the shared-signals streams object (`SsfStreams`), or null: no streams. Set by
   * `createAuthWorker({ ssf: { receivers } })`; the events that can become SETs are handed to it.
   */
  static ssfStreamsBinding: string | null = null;

  /** The features this class composes (features.ts): never reachable over RPC. */
  readonly #features: Features;

  constructor(ctx: DurableObjectState, env: ServerEnv) {
    super(ctx, env);
    migrate(ctx.storage.sql);
    this.#features = buildFeatures(ctx, env, new.target as typeof UserSessions, this);
  }

  /** Mirrors a new session under its session policy (policy.ts); refuses a revoked id; records the sign-in. */
  register(session: SessionMirror): RegisterResult {
    return this.#features.lifecycle.register(session);
  }

  /** Records use (the sliding refresh), called after the KV record was rewritten. */
  touch(sessionId: string, lastSeenAt: number, expiresAt: number): void {
    this.#features.lifecycle.touch(sessionId, lastSeenAt, expiresAt);
  }

  /** Every live (unexpired) session of the user, newest first. */
  list(now: number = objectNow()): SessionInfo[] {
    return this.#features.lifecycle.list(now);
  }

  /** True while the session is mirrored here, unexpired, not revoked, and issued after every kill switch told here. */
  isActive(sessionId: string, now: number = objectNow()): boolean {
    return this.#features.lifecycle.isActive(sessionId, now);
  }

  revoke(
    sessionId: string,
    reason: RevocationReason = "revoked",
    actor: RevocationActor = { kind: "user" },
  ): Promise<RevocationResult> {
    return this.#features.lifecycle.revoke(sessionId, reason, actor);
  }

  /** Revokes the session only while it is active here; null otherwise (one call: nothing lands in between). */
  revokeActive(
    sessionId: string,
    now: number = objectNow(),
    actor: RevocationActor = { kind: "user" },
  ): Promise<RevocationResult | null> {
    return this.#features.lifecycle.revokeActive(sessionId, now, actor);
  }

  revokeAll(
    reason: RevocationReason = "revoked_all",
    actor: RevocationActor = { kind: "user" },
  ): Promise<RevocationResult> {
    return this.#features.lifecycle.revokeAll(reason, actor);
  }

  revokeOthers(keepSessionId: string, actor: RevocationActor = { kind: "user" }): Promise<RevocationResult> {
    return this.#features.lifecycle.revokeOthers(keepSessionId, actor);
  }

  /** Revokes the session opened with this provider session id (WorkOS `sid`). */
  revokeByProviderSession(providerSessionId: string): Promise<RevocationResult> {
    return this.#features.lifecycle.revokeByProviderSession(providerSessionId);
  }

  /** An organization's kill switch reaching this member: every session issued before `epoch` ends, for good. */
  endForOrganization(organizationId: string, epoch: number, actor: RevocationActor): Promise<RevocationResult> {
    return this.#features.organizations.endForOrganization(organizationId, epoch, actor);
  }

  /**
   * Records a use of one of this user's revoked sessions (its cookie presented again), or of a bound
   * one without its device proof (`skipped`: why its browser said it had none), at most once per
   * session and reason per 10 minutes. An unknown reason is `revoked`, an unknown `skipped` is `unknown`.
   */
  recordRefused(
    sessionId: string,
    seen: { ip?: string; device?: string; location?: SessionLocation } = {},
    reason: RefusalReason = "revoked",
    skipped?: SkippedDetail,
  ): boolean {
    const known = REFUSAL_REASONS.includes(reason) ? reason : "revoked";
    const why = (SKIPPED_REASONS as readonly string[]).includes(skipped ?? "") ? skipped : "unknown";
    return this.#features.record.refused(sessionId, seen, known, known === "device_refresh_skipped" ? why : undefined);
  }

  /** Records a refused refresh proof of a bound session, at most once per session per 10 minutes (an unknown reason is `malformed`). */
  recordDeviceRefreshFailed(
    sessionId: string,
    seen: { ip?: string; device?: string; location?: SessionLocation } = {},
    reason: DeviceRefreshFailure = "malformed",
  ): boolean {
    const known = DEVICE_REFRESH_FAILURES.includes(reason) ? reason : "malformed";
    return this.#features.record.deviceRefreshFailed(sessionId, seen, known);
  }

  /**
   * Records a verified shared signal about this user (issue 32): `issuer` its host, `event` its type
   * URI, `setId` a digest of its `iss` and `jti` (once per SET, event and outcome). Values are
   * capped; an unknown outcome is refused (false).
   */
  recordSignal(issuer: string, event: string, outcome: SignalOutcome, setId: string): boolean {
    if (!SIGNAL_OUTCOMES.includes(outcome)) return false;
    const text = (value: unknown, max: number) => (typeof value === "string" ? value.slice(0, max) : "");
    return this.#features.record.signal(text(issuer, 253), text(event, 256), outcome, text(setId, 128));
  }

  /** Records a rate-limit lockout of a request that carried this session, at most once per session and route family per 10 minutes. */
  recordLockout(sessionId: string, family: string, retryAfterSeconds: number, ip?: string): boolean {
    return this.#features.record.lockout(sessionId, family, retryAfterSeconds, ip);
  }

  /** The user's timeline, newest first, one page at a time. */
  timeline(options: { cursor?: string | null; limit?: number } = {}): TimelinePage {
    return this.#features.record.timeline(options);
  }

  /** The devices and places the user signed in from within the retention window. */
  devices(): KnownDevice[] {
    return this.#features.record.devices();
  }

  /** A receipt of this object's revocations, by id; null when unknown or pruned. */
  receipt(id: string): RevocationReceipt | null {
    return this.#features.record.receipt(id);
  }

  /** The latest receipts of this user's revocations (at most `limit`, 1–100), newest first. */
  receipts(limit = 20): RevocationReceipt[] {
    return this.#features.record.receipts(limit);
  }

  /** The deliveries of this user's security events still to make and the latest attempts. */
  deliveries(limit = 20): SecurityEventDeliveries {
    return this.#features.record.deliveries(limit);
  }

  /** Applies one verified identity-provider event, once per event id (organization-controls/provider-events.ts). */
  applyProviderEvent(event: ProviderEvent): Promise<ProviderEventResult> {
    return this.#features.organizations.applyProviderEvent(event);
  }

  /** Counts of the provider-event state, for tests and operators. */
  providerEventStats(): { processedEvents: number; providerMemberships: number; pendingRewrites: number } {
    return this.#features.organizations.stats();
  }

  /** Counts for tests and operators: rows, tombstones, pending KV deletes, open sockets. */
  stats(): ObjectStats {
    return objectStats(this.ctx.storage.sql, this.getConnections());
  }

  /** A DBSC challenge for an active session (one of its last three per purpose counts); null when the session is not active. */
  bindingChallenge(
    sessionId: string,
    purpose: ChallengePurpose,
  ): Promise<{ challenge: string; expiresAt: number } | null> {
    return this.#features.binding.challenge(sessionId, purpose);
  }

  /** Spends the registration challenge a verified proof answered, then binds its key (a session keeps its first). */
  bindDevice(
    sessionId: string,
    challenge: string,
    key: { jwk: DbscPublicJwk; alg: DbscAlgorithm; thumbprint: string },
  ): Promise<BindOutcome> {
    return this.#features.binding.bind(sessionId, challenge, key);
  }

  /** The key bound to the session, or null. */
  boundKey(sessionId: string): BoundKey | null {
    return this.#features.binding.keyOf(sessionId);
  }

  /** Spends the refresh challenge a verified proof answered and records the refresh; false when it was not live. */
  noteBindingRefresh(sessionId: string, challenge: string): Promise<boolean> {
    return this.#features.binding.refreshed(sessionId, challenge);
  }

  /** Whether the session is active and bound, in one call (resolve with device binding on). */
  bindingState(sessionId: string, now: number = objectNow()): { active: boolean; bound: boolean } {
    return this.#features.binding.state(sessionId, now);
  }

  /** Admits an upgrade before partyserver sees it (live.ts `serveLive`); anything else is refused without a socket. */
  override async fetch(request: Request): Promise<Response> {
    return serveLive(request, this.#features.access, (built) => super.fetch(built));
  }

  override getConnectionTags(_connection: Connection, ctx: ConnectionContext): string[] {
    return liveTags(joinedOf(ctx.request));
  }

  override onConnect(connection: Connection, ctx: ConnectionContext): void {
    joinSocket(connection, ctx);
  }

  override onError(connection: Connection, error: unknown): void {
    closeOnError(connection, error);
  }

  override onMessage(connection: Connection, message: string | ArrayBuffer | ArrayBufferView): void {
    answerPing(connection, message);
  }

  /** A fresh access token of the identity provider for an active session (one refresh at a time). */
  async accessToken(sessionId: string): Promise<AccessTokenAnswer> {
    return this.#features.access.accessToken(sessionId);
  }

  /** A live ticket's nonce for an active session (the worker signs it, `fetch` spends it once); else null. */
  async mintTicket(sessionId: string): Promise<{ ticket: string; expiresAt: number } | null> {
    return this.#features.access.mintTicket(sessionId);
  }

  override onRequest(): Response {
    return Response.json(
      { error: "not_found", message: "Use the RPC methods or a WebSocket upgrade" },
      { status: 404 },
    );
  }

  override async onAlarm(): Promise<void> {
    await runAlarm(objectNow(), this.ctx.getWebSockets(), this.#features);
  }
}
