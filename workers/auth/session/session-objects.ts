/**
 * @module
 * The auth module's door to the per-user session objects (`UserSessions`).
 * Revocation lives in the object that owns a user's sessions: this class only
 * addresses the right object and maps its failures (503, through `storeCall`),
 * so no route reaches a stub around the error contract.
 */
import type {
  RevocationResult,
  SessionInfo,
  SessionMirror,
  UserSessions,
} from "../../../durable-objects/user-sessions";
import { storeCall } from "./store-call";

export class SessionObjects {
  readonly #namespace: DurableObjectNamespace<UserSessions>;
  readonly #clock: () => number;

  constructor(namespace: DurableObjectNamespace<UserSessions>, clock: () => number) {
    this.#namespace = namespace;
    this.#clock = clock;
  }

  /** Mirrors a new session; false when its id was revoked before (never reuse). */
  async register(userId: string, session: SessionMirror): Promise<boolean> {
    return (await storeCall(() => this.#stub(userId).register(session))).registered;
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

  revoke(userId: string, sessionId: string, reason: "logout" | "revoked"): Promise<RevocationResult> {
    return storeCall(() => this.#stub(userId).revoke(sessionId, reason));
  }

  /** Revokes the session only while it is active (null otherwise), atomically in its object. */
  revokeActive(userId: string, sessionId: string): Promise<RevocationResult | null> {
    return storeCall(() => this.#stub(userId).revokeActive(sessionId, this.#clock()));
  }

  revokeAll(userId: string): Promise<RevocationResult> {
    return storeCall(() => this.#stub(userId).revokeAll("revoked_all"));
  }

  revokeOthers(userId: string, keepSessionId: string): Promise<RevocationResult> {
    return storeCall(() => this.#stub(userId).revokeOthers(keepSessionId));
  }

  #stub(userId: string): DurableObjectStub<UserSessions> {
    return this.#namespace.get(this.#namespace.idFromName(userId));
  }
}
