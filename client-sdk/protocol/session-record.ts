/**
 * @module
 * The session record in KV and its store (`KVSessionStore`, the spec's low-level
 * store under `SessionManager`): one JSON record per session under
 * `sess:{sessionId}`, where sessionId is the SHA-256 (hex) of the secret token
 * in the cookie — the store never sees a token, so a leaked listing cannot be
 * replayed. The one place the key layout is built: the session manager and the
 * session objects both use it. It never decides validity: that is the manager's job.
 */
import { KV_MIN_TTL_SECONDS } from "../bindings/kv";

export const SESSION_PREFIX = "sess:";

/** What KV holds for one session (schema version 1). */
export interface SessionRecord {
  v: 1;
  /** Public session id: SHA-256 hex of the cookie's secret token. */
  id: string;
  userId: string;
  email: string;
  firstName: string;
  lastName: string;
  memberships: { organizationId: string; organizationSlug: string; role: string }[];
  organizationId?: string;
  /** The identity provider's session id (WorkOS `sid`). */
  providerSessionId?: string;
  createdAt: number;
  /** Last time the record was rewritten (sliding expiry), ms. */
  lastSeenAt: number;
  /** Idle expiry, ms. */
  idleExpiresAt: number;
  /** Absolute expiry, ms. */
  absoluteExpiresAt: number;
  userAgent?: string;
  ip?: string;
}

export function isSessionRecord(value: unknown): value is SessionRecord {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    r.v === 1 &&
    typeof r.id === "string" &&
    typeof r.userId === "string" &&
    typeof r.idleExpiresAt === "number" &&
    typeof r.absoluteExpiresAt === "number" &&
    Array.isArray(r.memberships)
  );
}

export class KVSessionStore {
  readonly #kv: KVNamespace;
  readonly #clock: () => number;

  constructor(kv: KVNamespace, clock: () => number = Date.now) {
    this.#kv = kv;
    this.#clock = clock;
  }

  key(sessionId: string): string {
    return `${SESSION_PREFIX}${sessionId}`;
  }

  /** The record, or null when absent or not a valid record. Store errors propagate. */
  async get(sessionId: string): Promise<SessionRecord | null> {
    const value = await this.#kv.get(this.key(sessionId), "json");
    return isSessionRecord(value) ? value : null;
  }

  /**
   * Writes the record. KV drops it at its earlier expiry, given as a
   * relative TTL (robust to an injected clock) and never below KV's 60 s floor;
   * the manager still checks expiry on every read, so the floor grants nothing.
   */
  async put(record: SessionRecord): Promise<void> {
    const expiresMs = Math.min(record.idleExpiresAt, record.absoluteExpiresAt);
    const expirationTtl = Math.max(KV_MIN_TTL_SECONDS, Math.ceil((expiresMs - this.#clock()) / 1000));
    await this.#kv.put(this.key(record.id), JSON.stringify(record), {
      expirationTtl,
      metadata: { userId: record.userId },
    });
  }

  delete(sessionId: string): Promise<void> {
    return this.#kv.delete(this.key(sessionId));
  }
}
