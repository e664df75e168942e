/**
 * @module
 * The auth module's door to the per-user session objects (`UserSessions`), shared by the session
 * core's feature doors (lifecycle, security record, provider access). Revocation lives in the
 * object that owns a user's sessions: this class only addresses the right object and maps its
 * failures (503, through `storeCall`), so no route reaches a stub around the error contract.
 */

import type {
  BoundKey,
  ChallengePurpose,
  DbscAlgorithm,
  DbscPublicJwk,
  DeviceRefreshFailure,
} from "../../../client-sdk/protocol/device-binding";
import type { RegisterResult } from "../../../client-sdk/protocol/lifecycle";
import type {
  KnownDevice,
  RevocationActor,
  RevocationReceipt,
  SecurityEventDeliveries,
  SessionLocation,
  SignalOutcome,
  TimelinePage,
} from "../../../client-sdk/protocol/security-record";
import type {
  AccessTokenAnswer,
  BindOutcome,
  RefusalReason,
  RevocationResult,
  SessionInfo,
  SessionMirror,
  SkippedDetail,
  UserSessions,
} from "../../../durable-objects/user-sessions";
import { storeCall } from "./store-call";

/** What a call that needs the per-user objects says when they are not bound (500 `config_missing`, see `bound`). */
export const USER_SESSIONS_UNBOUND = "Session revocation needs the USER_SESSIONS Durable Object binding";

export class SessionObjects {
  readonly #namespace: DurableObjectNamespace<UserSessions>;
  readonly #clock: () => number;

  constructor(namespace: DurableObjectNamespace<UserSessions>, clock: () => number) {
    this.#namespace = namespace;
    this.#clock = clock;
  }

  /** Mirrors a new session under the user's session policy (see `UserSessions.register`). */
  register(userId: string, session: SessionMirror): Promise<RegisterResult> {
    return storeCall(() => this.#stub(userId).register(session));
  }

  /** Records a slide; throws the raw failure (sliding is best effort, its caller logs). */
  touch(userId: string, sessionId: string, lastSeenAt: number, expiresAt: number): Promise<void> {
    return this.#stub(userId).touch(sessionId, lastSeenAt, expiresAt);
  }

  isActive(userId: string, sessionId: string): Promise<boolean> {
    return storeCall(() => this.#stub(userId).isActive(sessionId, this.#clock()));
  }

  list(userId: string): Promise<SessionInfo[]> {
    return storeCall(() => this.#stub(userId).list(this.#clock()));
  }

  revoke(
    userId: string,
    sessionId: string,
    reason: "logout" | "revoked" | "replaced" | "replaced_by_other_user",
    actor: RevocationActor,
  ): Promise<RevocationResult> {
    return storeCall(() => this.#stub(userId).revoke(sessionId, reason, actor));
  }

  /** Revokes the session only while it is active (null otherwise), atomically in its object. */
  revokeActive(userId: string, sessionId: string, actor: RevocationActor): Promise<RevocationResult | null> {
    return storeCall(() => this.#stub(userId).revokeActive(sessionId, this.#clock(), actor));
  }

  revokeAll(userId: string, actor: RevocationActor): Promise<RevocationResult> {
    return storeCall(() => this.#stub(userId).revokeAll("revoked_all", actor));
  }

  revokeOthers(userId: string, keepSessionId: string, actor: RevocationActor): Promise<RevocationResult> {
    return storeCall(() => this.#stub(userId).revokeOthers(keepSessionId, actor));
  }

  timeline(userId: string, options: { cursor?: string | null; limit?: number }): Promise<TimelinePage> {
    return storeCall(() => this.#stub(userId).timeline(options));
  }

  devices(userId: string): Promise<KnownDevice[]> {
    return storeCall(() => this.#stub(userId).devices());
  }

  receipt(userId: string, id: string): Promise<RevocationReceipt | null> {
    return storeCall(() => this.#stub(userId).receipt(id));
  }

  receipts(userId: string, limit: number): Promise<RevocationReceipt[]> {
    return storeCall(() => this.#stub(userId).receipts(limit));
  }

  deliveries(userId: string, limit: number): Promise<SecurityEventDeliveries> {
    return storeCall(() => this.#stub(userId).deliveries(limit));
  }

  /** A fresh provider access token for the session (one refresh at a time, in its object). */
  accessToken(userId: string, sessionId: string): Promise<AccessTokenAnswer> {
    return storeCall(async () => (await this.#stub(userId).accessToken(sessionId)) as AccessTokenAnswer);
  }

  /** A single-use ticket for the session's live channel, or null when the session is not active. */
  mintTicket(userId: string, sessionId: string): Promise<{ ticket: string; expiresAt: number } | null> {
    return storeCall(() => this.#stub(userId).mintTicket(sessionId));
  }

  /** A DBSC challenge for an active session, or null (device binding). */
  bindingChallenge(
    userId: string,
    sessionId: string,
    purpose: ChallengePurpose,
  ): Promise<{ challenge: string; expiresAt: number } | null> {
    return storeCall(() => this.#stub(userId).bindingChallenge(sessionId, purpose));
  }

  /** Spends the registration challenge and binds the verified key (see `UserSessions.bindDevice`). */
  bindDevice(
    userId: string,
    sessionId: string,
    challenge: string,
    key: { jwk: DbscPublicJwk; alg: DbscAlgorithm; thumbprint: string },
  ): Promise<BindOutcome> {
    return storeCall(() => this.#stub(userId).bindDevice(sessionId, challenge, key));
  }

  boundKey(userId: string, sessionId: string): Promise<BoundKey | null> {
    return storeCall(async () => (await this.#stub(userId).boundKey(sessionId)) as BoundKey | null);
  }

  noteBindingRefresh(userId: string, sessionId: string, challenge: string): Promise<boolean> {
    return storeCall(() => this.#stub(userId).noteBindingRefresh(sessionId, challenge));
  }

  /** Whether the session is active and bound, in one call. */
  bindingState(userId: string, sessionId: string): Promise<{ active: boolean; bound: boolean }> {
    return storeCall(() => this.#stub(userId).bindingState(sessionId, this.#clock()));
  }

  /** Tells the user's timeline that a revoked session's cookie came back (or a bound one without its proof); failures are logged, never thrown. */
  recordRefused(
    userId: string,
    sessionId: string,
    seen: { ip?: string; device?: string; location?: SessionLocation },
    reason: RefusalReason = "revoked",
    skipped?: SkippedDetail,
  ): Promise<void> {
    return this.#tellTimeline(userId, "a refused session", (stub) =>
      skipped === undefined
        ? stub.recordRefused(sessionId, seen, reason)
        : stub.recordRefused(sessionId, seen, reason, skipped),
    );
  }

  /** Tells the user's timeline a bound session's refresh proof was refused; failures are logged, never thrown. */
  recordDeviceRefreshFailed(
    userId: string,
    sessionId: string,
    seen: { ip?: string; device?: string; location?: SessionLocation },
    reason: DeviceRefreshFailure,
  ): Promise<void> {
    return this.#tellTimeline(userId, "a refused device refresh", (stub) =>
      stub.recordDeviceRefreshFailed(sessionId, seen, reason),
    );
  }

  /** Tells the user's timeline a request of theirs was locked out; failures are logged, never thrown. */
  recordLockout(userId: string, sessionId: string, family: string, retryAfter: number, ip?: string): Promise<void> {
    return this.#tellTimeline(userId, "a rate-limit lockout", (stub) =>
      stub.recordLockout(sessionId, family, retryAfter, ip),
    );
  }

  /** Tells the user's timeline a verified shared signal arrived (issue 32); failures are logged, never thrown. */
  recordSignal(userId: string, issuer: string, event: string, outcome: SignalOutcome, setId: string): Promise<void> {
    return this.#tellTimeline(userId, "a shared signal", (stub) => stub.recordSignal(issuer, event, outcome, setId));
  }

  /** One write to the user's timeline on behalf of a request it must never fail: a failure is logged and dropped. */
  async #tellTimeline(
    userId: string,
    what: string,
    write: (stub: DurableObjectStub<UserSessions>) => Promise<unknown>,
  ): Promise<void> {
    try {
      await write(this.#stub(userId));
    } catch (err) {
      console.error(`gatehouse: could not record ${what}`, err instanceof Error ? err.message : err);
    }
  }

  #stub(userId: string): DurableObjectStub<UserSessions> {
    return this.#namespace.get(this.#namespace.idFromName(userId));
  }
}
