/**
 * All state of the local identity provider in one place: the directory (users, organizations,
 * memberships), pending authorization requests, one-time codes, provider sessions and rotating
 * refresh tokens. Every change goes through a method here and state-changing ones emit a
 * `StoreEvent`, which the webhook sender (`webhooks.ts`) delivers. Never does HTTP, never signs anything.
 */
import {
  DEMO_MEMBERSHIPS,
  DEMO_ORGANIZATIONS,
  DEMO_USERS,
  type DemoMembership,
  type DemoOrganization,
  type DemoUser,
} from "./demo-data.ts";
import { randomSecret, ulid } from "./ids.ts";

/** Codes and pending authorization requests live this long. */
export const CODE_TTL_MS = 10 * 60 * 1000;

export interface UserRecord extends DemoUser {
  updatedAt: string;
  lastSignInAt: string | null;
}
export type OrganizationRecord = DemoOrganization;
export interface MembershipRecord extends DemoMembership {
  status: "active" | "inactive" | "pending";
  updatedAt: string;
}

/** What the authorize page was asked for, kept server-side until a person picks a user. */
export interface AuthorizationRequest {
  id: string;
  clientId: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string | null;
  /** Restricts the choice to this organization (the `organization_id` authorize parameter). */
  organizationId: string | null;
  expiresAt: number;
}

export interface AuthorizationCode {
  code: string;
  clientId: string;
  userId: string;
  organizationId: string | null;
  codeChallenge: string | null;
  expiresAt: number;
  used: boolean;
}

export interface ProviderSession {
  id: string;
  userId: string;
  organizationId: string | null;
  createdAt: number;
  endedAt: number | null;
  endReason: "revoked" | "logout" | null;
}

export type MembershipEventType =
  | "organization_membership.created"
  | "organization_membership.updated"
  | "organization_membership.deleted";

/** Emitted after every change a provider would announce; `webhooks.ts` delivers them as WorkOS events. */
export type StoreEvent =
  | { type: "session.created"; session: ProviderSession }
  | { type: "session.revoked"; session: ProviderSession }
  | { type: MembershipEventType; membership: MembershipRecord }
  | { type: "user.deleted"; user: UserRecord };

export type Result<T, R extends string> = { ok: true; value: T } | { ok: false; reason: R };

export interface MembershipFilter {
  userId?: string;
  organizationId?: string;
  statuses?: readonly string[];
}

export class IdpStore {
  readonly #now: () => number;
  readonly #listeners = new Set<(event: StoreEvent) => void>();
  #users = new Map<string, UserRecord>();
  #organizations = new Map<string, OrganizationRecord>();
  #memberships: MembershipRecord[] = [];
  #requests = new Map<string, AuthorizationRequest>();
  #codes = new Map<string, AuthorizationCode>();
  #sessions = new Map<string, ProviderSession>();
  /** refresh token → session id and whether it was already exchanged (single use). */
  #refreshTokens = new Map<string, { sessionId: string; used: boolean }>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.reset();
  }

  /** Back to the demo directory with no requests, codes, sessions or tokens. */
  reset(): void {
    this.#users = new Map(DEMO_USERS.map((u) => [u.id, { ...u, updatedAt: u.createdAt, lastSignInAt: null }]));
    this.#organizations = new Map(DEMO_ORGANIZATIONS.map((o) => [o.id, { ...o }]));
    this.#memberships = DEMO_MEMBERSHIPS.map((m) => ({ ...m, status: "active", updatedAt: m.createdAt }));
    this.#requests.clear();
    this.#codes.clear();
    this.#sessions.clear();
    this.#refreshTokens.clear();
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // ── directory ──────────────────────────────────────────────────────────────
  users(): UserRecord[] {
    return [...this.#users.values()];
  }
  user(id: string): UserRecord | null {
    return this.#users.get(id) ?? null;
  }
  organizations(): OrganizationRecord[] {
    return [...this.#organizations.values()];
  }
  organization(id: string): OrganizationRecord | null {
    return this.#organizations.get(id) ?? null;
  }
  organizationByExternalId(externalId: string): OrganizationRecord | null {
    return this.organizations().find((o) => o.externalId === externalId) ?? null;
  }
  memberships(filter: MembershipFilter = {}): MembershipRecord[] {
    const statuses = filter.statuses ?? ["active"];
    return this.#memberships.filter(
      (m) =>
        (filter.userId === undefined || m.userId === filter.userId) &&
        (filter.organizationId === undefined || m.organizationId === filter.organizationId) &&
        statuses.includes(m.status),
    );
  }
  /** A membership by id, whatever its status. */
  membershipById(id: string): MembershipRecord | null {
    const found = this.#memberships.find((m) => m.id === id);
    return found ? { ...found } : null;
  }

  /** The active membership of a user in an organization, if any. */
  membership(userId: string, organizationId: string): MembershipRecord | null {
    return this.memberships({ userId, organizationId })[0] ?? null;
  }

  /**
   * The organizations a user may sign in to: each active membership (optionally only `restrictTo`),
   * or `[null]` for a user who belongs to no organization at all.
   */
  signInChoices(userId: string, restrictTo: string | null = null): (string | null)[] {
    const orgs = this.memberships({ userId }).map((m) => m.organizationId);
    if (restrictTo !== null) return orgs.filter((o) => o === restrictTo);
    return orgs.length === 0 ? [null] : orgs;
  }

  /** Picks the organization a sign-in ends up in; `requested` may be omitted when there is one choice. */
  resolveSignIn(
    userId: string,
    requested: string | null,
    restrictTo: string | null = null,
  ): Result<string | null, "unknown_user" | "organization_required" | "not_a_member"> {
    if (!this.#users.has(userId)) return { ok: false, reason: "unknown_user" };
    const choices = this.signInChoices(userId, restrictTo);
    if (requested === null) {
      if (choices.length === 1) return { ok: true, value: choices[0] ?? null };
      return { ok: false, reason: choices.length === 0 ? "not_a_member" : "organization_required" };
    }
    return choices.includes(requested) ? { ok: true, value: requested } : { ok: false, reason: "not_a_member" };
  }

  /** Gives a membership another role; emits `organization_membership.updated` when it changed. */
  setMembershipRole(id: string, role: string): MembershipRecord | null {
    const found = this.#memberships.find((m) => m.id === id);
    if (!found) return null;
    if (found.role !== role) {
      found.role = role;
      found.updatedAt = new Date(this.#now()).toISOString();
      this.#emit({ type: "organization_membership.updated", membership: { ...found } });
    }
    return { ...found };
  }

  /** Adds an active membership; emits `organization_membership.created`. */
  addMembership(
    userId: string,
    organizationId: string,
    role: string,
  ): Result<MembershipRecord, "unknown_user" | "unknown_organization" | "already_member"> {
    if (!this.#users.has(userId)) return { ok: false, reason: "unknown_user" };
    if (!this.#organizations.has(organizationId)) return { ok: false, reason: "unknown_organization" };
    if (this.#memberships.some((m) => m.userId === userId && m.organizationId === organizationId)) {
      return { ok: false, reason: "already_member" };
    }
    const now = new Date(this.#now()).toISOString();
    const membership: MembershipRecord = {
      id: `om_${ulid(this.#now())}`,
      userId,
      organizationId,
      role,
      status: "active",
      createdAt: now,
      updatedAt: now,
    };
    this.#memberships.push(membership);
    this.#emit({ type: "organization_membership.created", membership: { ...membership } });
    return { ok: true, value: { ...membership } };
  }

  /** Removes a membership; emits `organization_membership.deleted`. */
  removeMembership(id: string): MembershipRecord | null {
    const index = this.#memberships.findIndex((m) => m.id === id);
    if (index < 0) return null;
    const [removed] = this.#memberships.splice(index, 1);
    this.#emit({ type: "organization_membership.deleted", membership: { ...removed! } });
    return { ...removed! };
  }

  /**
   * Deletes a user with their memberships, and ends their sessions (refresh tokens then fail).
   * Emits only `user.deleted`: that one event tells a relying party everything.
   */
  deleteUser(id: string): UserRecord | null {
    const user = this.#users.get(id);
    if (!user) return null;
    this.#users.delete(id);
    this.#memberships = this.#memberships.filter((m) => m.userId !== id);
    const now = this.#now();
    for (const session of this.#sessions.values()) {
      if (session.userId === id && session.endedAt === null) {
        session.endedAt = now;
        session.endReason = "revoked";
      }
    }
    this.#emit({ type: "user.deleted", user: { ...user, updatedAt: new Date(now).toISOString() } });
    return { ...user };
  }

  // ── authorization requests and codes ──────────────────────────────────────
  createAuthorizationRequest(input: Omit<AuthorizationRequest, "id" | "expiresAt">): AuthorizationRequest {
    this.#prune();
    const request = { ...input, id: randomSecret(18), expiresAt: this.#now() + CODE_TTL_MS };
    this.#requests.set(request.id, request);
    return request;
  }

  /** A pending request, or null when unknown or expired. */
  authorizationRequest(id: string): AuthorizationRequest | null {
    const request = this.#requests.get(id);
    return request && request.expiresAt > this.#now() ? { ...request } : null;
  }

  /** Ends a pending request once it produced a code or was cancelled. */
  completeAuthorizationRequest(id: string): void {
    this.#requests.delete(id);
  }

  issueCode(input: Omit<AuthorizationCode, "code" | "expiresAt" | "used">): AuthorizationCode {
    this.#prune();
    const code = { ...input, code: randomSecret(24), expiresAt: this.#now() + CODE_TTL_MS, used: false };
    this.#codes.set(code.code, code);
    return code;
  }

  /** Marks a code used on every presentation, so a code can never be tried twice. */
  redeemCode(code: string): Result<AuthorizationCode, "unknown" | "used" | "expired"> {
    const found = this.#codes.get(code);
    if (!found) return { ok: false, reason: "unknown" };
    if (found.used) return { ok: false, reason: "used" };
    found.used = true;
    if (found.expiresAt <= this.#now()) return { ok: false, reason: "expired" };
    return { ok: true, value: { ...found } };
  }

  // ── sessions and refresh tokens ───────────────────────────────────────────
  createSession(userId: string, organizationId: string | null): { session: ProviderSession; refreshToken: string } {
    const now = this.#now();
    const session: ProviderSession = {
      id: `session_${ulid(now)}`,
      userId,
      organizationId,
      createdAt: now,
      endedAt: null,
      endReason: null,
    };
    this.#sessions.set(session.id, session);
    const user = this.#users.get(userId);
    if (user) user.lastSignInAt = new Date(now).toISOString();
    this.#emit({ type: "session.created", session: { ...session } });
    return { session: { ...session }, refreshToken: this.#mintRefreshToken(session.id) };
  }

  /**
   * Exchanges a refresh token for a new one (the old one is spent even if the exchange fails
   * later), optionally switching the session to another organization the user belongs to.
   */
  rotateRefreshToken(
    token: string,
    switchTo: string | null,
  ): Result<{ session: ProviderSession; refreshToken: string }, "unknown" | "used" | "session_ended" | "not_a_member"> {
    const entry = this.#refreshTokens.get(token);
    if (!entry) return { ok: false, reason: "unknown" };
    if (entry.used) return { ok: false, reason: "used" };
    entry.used = true;
    const session = this.#sessions.get(entry.sessionId);
    if (!session || session.endedAt !== null || !this.#users.has(session.userId)) {
      return { ok: false, reason: "session_ended" };
    }
    if (switchTo !== null && switchTo !== session.organizationId) {
      if (!this.membership(session.userId, switchTo)) return { ok: false, reason: "not_a_member" };
      session.organizationId = switchTo;
    }
    return { ok: true, value: { session: { ...session }, refreshToken: this.#mintRefreshToken(session.id) } };
  }

  session(id: string): ProviderSession | null {
    const session = this.#sessions.get(id);
    return session ? { ...session } : null;
  }

  liveSessions(userId?: string): ProviderSession[] {
    return [...this.#sessions.values()]
      .filter((s) => s.endedAt === null && (userId === undefined || s.userId === userId))
      .map((s) => ({ ...s }));
  }

  /** Ends a session (idempotent). Returns null for an unknown id. */
  endSession(id: string, reason: "revoked" | "logout"): ProviderSession | null {
    const session = this.#sessions.get(id);
    if (!session) return null;
    if (session.endedAt === null) {
      session.endedAt = this.#now();
      session.endReason = reason;
      this.#emit({ type: "session.revoked", session: { ...session } });
    }
    return { ...session };
  }

  #mintRefreshToken(sessionId: string): string {
    const token = randomSecret(32);
    this.#refreshTokens.set(token, { sessionId, used: false });
    return token;
  }

  #emit(event: StoreEvent): void {
    for (const listener of this.#listeners) listener(event);
  }

  /** Drops expired requests and codes so a long-running server does not grow without bound. */
  #prune(): void {
    const now = this.#now();
    for (const [id, r] of this.#requests) if (r.expiresAt <= now) this.#requests.delete(id);
    for (const [code, c] of this.#codes) if (c.expiresAt <= now) this.#codes.delete(code);
  }
}
