/**
 * @module
 * Security record, the worker's door (contract: `client-sdk/protocol/security-record.ts`): a user's
 * timeline, devices, revocation receipts and security-event deliveries, read from their session
 * object (an organization's receipts from its own), and what the worker tells a timeline: a revoked
 * cookie used again, a bound session without its device proof (or with its browser's word why), a
 * refused device refresh, a rate-limit lockout. Reports are throttled per isolate (`report-throttle.ts`),
 * never fail a request, and never slide or otherwise touch a session.
 */
import type { DeviceRefreshFailure } from "../../../client-sdk/protocol/device-binding";
import type {
  KnownDevice,
  RevocationReceipt,
  SecurityEventDeliveries,
  SessionLocation,
  SignalOutcome,
  TimelinePage,
} from "../../../client-sdk/protocol/security-record";
import { organizationReceiptOwner } from "../../../durable-objects/organization-sessions";
import { receiptOwner, type SkippedDetail } from "../../../durable-objects/user-sessions";
import type { HmacSigner } from "../crypto";
import type { ResolvedSessionConfig } from "./config";
import type { KVSessionStore } from "./kv-session-store";
import type { OrganizationControls } from "./organization-controls";
import { ReportThrottle } from "./report-throttle";
import { type SessionObjects, USER_SESSIONS_UNBOUND } from "./session-objects";
import { bound, storeCall } from "./store-call";
import { sessionIdOf } from "./token";
import { describeUserAgent } from "./user-agent";

/** A revoked session's cookie used within this long after the revocation is not reported. */
export const REFUSED_GRACE_MS = 2 * 60 * 1000;

/** Optional request facts stored with a session (shown on "your sessions" pages and the timeline). */
export interface SessionMeta {
  userAgent?: string;
  ip?: string;
  /** Where the request came from (the auth worker reads it from `request.cf`, or its location source). */
  location?: SessionLocation;
}

export class SecurityRecord {
  readonly #config: ResolvedSessionConfig;
  readonly #store: KVSessionStore;
  readonly #signer: HmacSigner;
  readonly #objects: SessionObjects | undefined;
  readonly #organizations: OrganizationControls;
  /** What this isolate told timelines lately (refused use, lockouts): once per key per 10 minutes. */
  readonly #reports = new ReportThrottle();

  constructor(
    config: ResolvedSessionConfig,
    store: KVSessionStore,
    signer: HmacSigner,
    objects: SessionObjects | undefined,
    organizations: OrganizationControls,
  ) {
    this.#config = config;
    this.#store = store;
    this.#signer = signer;
    this.#objects = objects;
    this.#organizations = organizations;
  }

  timeline(userId: string, options: { cursor?: string | null; limit?: number }): Promise<TimelinePage> {
    return this.#required().timeline(userId, options);
  }

  devices(userId: string): Promise<KnownDevice[]> {
    return this.#required().devices(userId);
  }

  receipts(userId: string, limit: number): Promise<RevocationReceipt[]> {
    return this.#required().receipts(userId, limit);
  }

  deliveries(userId: string, limit: number): Promise<SecurityEventDeliveries> {
    return this.#required().deliveries(userId, limit);
  }

  /** A receipt by id: a user's `rcpt.u.…` from their object, an organization's `rcpt.o.…` from its one; else null. */
  receipt(id: string): Promise<RevocationReceipt | null> {
    const userId = receiptOwner(id);
    if (userId !== null) return this.#required().receipt(userId, id);
    const organizationId = organizationReceiptOwner(id);
    return organizationId !== null ? this.#organizations.receipt(organizationId, id) : Promise.resolve(null);
  }

  /** Tells the user's timeline that a request carrying this session was locked out by a rate limit. */
  async recordLockout(
    userId: string,
    sessionId: string,
    family: string,
    retryAfterSeconds: number,
    ip?: string,
  ): Promise<void> {
    await this.#objects?.recordLockout(userId, sessionId, family, retryAfterSeconds, ip);
  }

  /** A verified shared signal about this user (issue 32, `SignalOutcome`), on their timeline; a no-op without the objects. */
  async recordSignal(
    userId: string,
    issuer: string,
    event: string,
    outcome: SignalOutcome,
    setId: string,
  ): Promise<void> {
    await this.#objects?.recordSignal(userId, issuer, event, outcome, setId);
  }

  /** A rate limit refused this request: when it carries a session still in KV, tell its user's timeline. */
  async reportLockout(request: Request, family: string, retryAfterSeconds: number): Promise<void> {
    if (!this.#objects) return;
    const sessionId = await sessionIdOf(this.#signer, this.#config.cookieName, request.headers.get("Cookie"));
    if (!sessionId || !this.#reports.admit(`lockout:${sessionId}:${family}`, this.#config.clock())) return;
    const record = await storeCall(() => this.#store.get(sessionId));
    if (!record || record.id !== sessionId) return;
    const ip = request.headers.get("CF-Connecting-IP")?.slice(0, 64);
    await this.#objects.recordLockout(record.userId, sessionId, family, retryAfterSeconds, ip);
  }

  /** Tells the owner's timeline a revoked session's cookie was used, at most once per session per isolate per 10 minutes. */
  async reportRefused(userId: string, revokedAt: number, sessionId: string, seen: SessionMeta): Promise<void> {
    const now = this.#config.clock();
    // The revoked browser's own last requests (its open tab leaving, a page still polling) are not
    // an intruder: only a use later than the grace period is.
    if (now - revokedAt < REFUSED_GRACE_MS) return;
    if (!this.#objects || !this.#reports.admit(`refused:${sessionId}`, now)) return;
    await this.#objects.recordRefused(userId, sessionId, whereFrom(seen));
  }

  /** Tells the owner's timeline a bound session came without its fresh bound cookie (device binding), throttled like `reportRefused`. */
  async reportDeviceProofMissing(userId: string, sessionId: string, seen: SessionMeta): Promise<void> {
    if (!this.#objects || !this.#reports.admit(`device:${sessionId}`, this.#config.clock())) return;
    await this.#objects.recordRefused(userId, sessionId, whereFrom(seen), "device_proof_missing");
  }

  /**
   * Like `reportDeviceProofMissing`, when the request's `Secure-Session-Skipped` named this session:
   * its browser says why it had no fresh proof. Throttled apart from a missing proof, so a browser's
   * word (which anyone can send) never keeps a copied cookie's use off the timeline longer.
   */
  async reportDeviceRefreshSkipped(
    userId: string,
    sessionId: string,
    seen: SessionMeta,
    skipped: SkippedDetail,
  ): Promise<void> {
    if (!this.#objects || !this.#reports.admit(`skipped:${sessionId}`, this.#config.clock())) return;
    await this.#objects.recordRefused(userId, sessionId, whereFrom(seen), "device_refresh_skipped", skipped);
  }

  /** Tells the owner's timeline a refresh proof of their bound session was refused, throttled per session like the others. */
  async reportDeviceRefreshFailed(
    userId: string,
    sessionId: string,
    seen: SessionMeta,
    reason: DeviceRefreshFailure,
  ): Promise<void> {
    if (!this.#objects || !this.#reports.admit(`refreshfail:${sessionId}`, this.#config.clock())) return;
    await this.#objects.recordDeviceRefreshFailed(userId, sessionId, whereFrom(seen), reason);
  }

  #required(): SessionObjects {
    return bound(this.#objects, USER_SESSIONS_UNBOUND);
  }
}

/** What a timeline keeps of a request: its address (capped), its device as a person reads it, its place. */
function whereFrom(seen: SessionMeta): { ip?: string; device?: string; location?: SessionLocation } {
  return {
    ...(seen.ip ? { ip: seen.ip.slice(0, 64) } : {}),
    ...(seen.userAgent ? { device: describeUserAgent(seen.userAgent) } : {}),
    ...(seen.location ? { location: seen.location } : {}),
  };
}
