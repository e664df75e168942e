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
  /** When the person last actively authenticated (ms): step-up compares it with a maximum age. */
  authenticatedAt?: number;
  /** Set when an operator is signed in as this person (the provider's impersonation). */
  impersonator?: { email: string; reason: string | null };
  /**
   * Device binding (issue 30): set once the session's browser bound a key, so a resolve from KV
   * alone (eventual mode) knows the bound cookie is required. Never the key: that stays in the
   * user's object.
   */
  bound?: true;
  /** Device binding: this session counts only once bound, because this membership's role requires it. */
  bindingRequired?: { organizationId: string | null; organizationSlug?: string; role: string };
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
    Array.isArray(r.memberships) &&
    (r.authenticatedAt === undefined || typeof r.authenticatedAt === "number") &&
    (r.impersonator === undefined ||
      (typeof r.impersonator === "object" &&
        r.impersonator !== null &&
        typeof (r.impersonator as { email?: unknown }).email === "string")) &&
    (r.bound === undefined || r.bound === true) &&
    (r.bindingRequired === undefined ||
      (typeof r.bindingRequired === "object" &&
        r.bindingRequired !== null &&
        typeof (r.bindingRequired as { role?: unknown }).role === "string"))
  );
}

/**
 * What KV holds under a revoked session's key for a day, in place of its record: whose session it
 * was, so a later use of the cookie is refused and told to that user's timeline. Never a record
 * (`isSessionRecord` refuses it), so code that only knows records reads "no session".
 */
export interface RevokedMark {
  v: 1;
  revoked: true;
  userId: string;
  revokedAt: number;
}

/** How long the mark stays (then the key is gone, as before revocations left marks). */
export const REVOKED_MARK_TTL_SECONDS = 24 * 3600;

export function revokedMark(userId: string, revokedAt: number): string {
  const mark: RevokedMark = { v: 1, revoked: true, userId, revokedAt };
  return JSON.stringify(mark);
}

export function isRevokedMark(value: unknown): value is RevokedMark {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  return r.v === 1 && r.revoked === true && typeof r.userId === "string";
}

/** A KV lookup: a live record, the mark of a revoked session, or nothing. */
export type StoredSession = { record: SessionRecord } | { revokedFrom: string; revokedAt: number } | null;

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

  /** The record, or null when absent, revoked or not a valid record. Store errors propagate. */
  async get(sessionId: string): Promise<SessionRecord | null> {
    const found = await this.lookup(sessionId);
    return found && "record" in found ? found.record : null;
  }

  /** The record, or whose revoked session this was (its mark), or null. One KV read. */
  async lookup(sessionId: string): Promise<StoredSession> {
    const value = await this.#kv.get(this.key(sessionId), "json");
    if (isSessionRecord(value)) return { record: value };
    if (isRevokedMark(value)) return { revokedFrom: value.userId, revokedAt: Number(value.revokedAt) || 0 };
    return null;
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
