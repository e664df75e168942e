/**
 * All state of the local identity provider in one place: the directory (users, organizations,
 * memberships), pending authorization requests, one-time codes, provider sessions, rotating
 * refresh tokens (`refresh-tokens.ts`) and armed impersonations (`impersonations.ts`). Every change
 * goes through a method here and state-changing ones emit a `StoreEvent`, which the webhook sender
 * (`webhooks.ts`) delivers; directory changes (people, organizations, memberships) also tell the
 * `onDirectoryChange` listeners, which keep it in a file (`directory-file.ts`). Never does HTTP,
 * never signs anything, never touches a file itself.
 */
import {
  DEMO_MEMBERSHIPS,
  DEMO_ORGANIZATIONS,
  DEMO_USERS,
  type DemoMembership,
  type DemoOrganization,
  type DemoUser,
} from "./demo-data.ts";
import type { DirectorySnapshot } from "./directory-file.ts";
import { ulid } from "./ids.ts";
import { type Impersonator, type PendingImpersonation, PendingImpersonations } from "./impersonations.ts";
import { type RefreshStats, RefreshTokenLedger } from "./refresh-tokens.ts";
import {
  type AuthorizationCode,
  type AuthorizationRequest,
  type AuthorizationRequestInput,
  type CodeInput,
  type RedeemRefusal,
  SignInLedger,
} from "./sign-ins.ts";

export type { Impersonator, PendingImpersonation } from "./impersonations.ts";
export {
  type AuthorizationCode,
  type AuthorizationRequest,
  type AuthorizationRequestInput,
  CODE_TTL_MS,
  type CodeInput,
} from "./sign-ins.ts";

export interface UserRecord extends DemoUser {
  updatedAt: string;
  lastSignInAt: string | null;
}
export type OrganizationRecord = DemoOrganization;
export interface MembershipRecord extends DemoMembership {
  status: "active" | "inactive" | "pending";
  updatedAt: string;
}

export interface ProviderSession {
  id: string;
  userId: string;
  organizationId: string | null;
  /** The person's last active authentication (ms); a refresh keeps it. Access tokens carry it as `auth_time`. */
  authTime: number;
  /** Its access tokens carry `auth_time` whatever the provider's setting (see `IdpConfig.authTimeClaim`). */
  authTimeClaim: boolean;
  impersonator: Impersonator | null;
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
  readonly #directoryListeners = new Set<() => void>();
  #users = new Map<string, UserRecord>();
  #organizations = new Map<string, OrganizationRecord>();
  #memberships: MembershipRecord[] = [];
  readonly #signIns: SignInLedger;
  #sessions = new Map<string, ProviderSession>();
  readonly #refreshTokens = new RefreshTokenLedger();
  readonly #impersonations = new PendingImpersonations();

  /** `directory`: start from a saved directory (a file read at start) instead of the demo one. */
  constructor(now: () => number = Date.now, directory: DirectorySnapshot | null = null) {
    this.#now = now;
    this.#signIns = new SignInLedger(now);
    this.reset();
    if (directory !== null) {
      this.#users = new Map(directory.users.map((u) => [u.id, { ...u }]));
      this.#organizations = new Map(directory.organizations.map((o) => [o.id, { ...o }]));
      this.#memberships = directory.memberships.map((m) => ({ ...m }));
    }
  }

  /** Back to the demo directory with no requests, codes, sessions, tokens, token stats or impersonations. */
  reset(): void {
    this.#users = new Map(DEMO_USERS.map((u) => [u.id, { ...u, updatedAt: u.createdAt, lastSignInAt: null }]));
    this.#organizations = new Map(DEMO_ORGANIZATIONS.map((o) => [o.id, { ...o }]));
    this.#memberships = DEMO_MEMBERSHIPS.map((m) => ({ ...m, status: "active", updatedAt: m.createdAt }));
    this.#signIns.clear();
    this.#sessions.clear();
    this.#refreshTokens.clear();
    this.#impersonations.clear();
    this.#directoryChanged();
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calls `listener` after every change of the directory (read it with `directory()`). */
  onDirectoryChange(listener: () => void): () => void {
    this.#directoryListeners.add(listener);
    return () => this.#directoryListeners.delete(listener);
  }

  /** A copy of the directory: what `directory-file.ts` saves and the constructor takes back. */
  directory(): DirectorySnapshot {
    return {
      version: 1,
      users: this.users().map((u) => ({ ...u })),
      organizations: this.organizations().map((o) => ({ ...o })),
      memberships: this.#memberships.map((m) => ({ ...m })),
    };
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
      this.#directoryChanged();
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
    this.#directoryChanged();
    this.#emit({ type: "organization_membership.created", membership: { ...membership } });
    return { ok: true, value: { ...membership } };
  }

  /** Removes a membership; emits `organization_membership.deleted`. */
  removeMembership(id: string): MembershipRecord | null {
    const index = this.#memberships.findIndex((m) => m.id === id);
    if (index < 0) return null;
    const [removed] = this.#memberships.splice(index, 1);
    this.#directoryChanged();
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
    this.#impersonations.cancel(id);
    const now = this.#now();
    for (const session of this.#sessions.values()) {
      if (session.userId === id && session.endedAt === null) {
        session.endedAt = now;
        session.endReason = "revoked";
      }
    }
    this.#directoryChanged();
    this.#emit({ type: "user.deleted", user: { ...user, updatedAt: new Date(now).toISOString() } });
    return { ...user };
  }

  // ── authorization requests and codes ──────────────────────────────────────
  createAuthorizationRequest(input: AuthorizationRequestInput): AuthorizationRequest {
    return this.#signIns.createRequest(input);
  }

  /** A pending request, or null when unknown or expired. */
  authorizationRequest(id: string): AuthorizationRequest | null {
    return this.#signIns.request(id);
  }

  /** Ends a pending request once it produced a code or was cancelled. */
  completeAuthorizationRequest(id: string): void {
    this.#signIns.completeRequest(id);
  }

  /** A one-time code; it takes the impersonation armed for this user and organization, if any. */
  issueCode(input: CodeInput): AuthorizationCode {
    return this.#signIns.issueCode(input, this.#impersonations.take(input.userId, input.organizationId));
  }

  /** Marks a code used on every presentation, so a code can never be tried twice. */
  redeemCode(code: string): Result<AuthorizationCode, RedeemRefusal> {
    return this.#signIns.redeem(code);
  }

  // ── impersonations ─────────────────────────────────────────────────────────
  /**
   * Arms an impersonation: the next code for `userId` (into `organizationId` when given) signs in
   * with `impersonator`. Re-arming replaces the previous one.
   */
  armImpersonation(
    userId: string,
    impersonator: Impersonator,
    organizationId: string | null,
  ): Result<PendingImpersonation, "unknown_user" | "not_a_member"> {
    if (!this.#users.has(userId)) return { ok: false, reason: "unknown_user" };
    if (organizationId !== null && !this.membership(userId, organizationId)) {
      return { ok: false, reason: "not_a_member" };
    }
    return {
      ok: true,
      value: this.#impersonations.arm({ userId, impersonator, organizationId, createdAt: this.#now() }),
    };
  }
  cancelImpersonation(userId: string): PendingImpersonation | null {
    return this.#impersonations.cancel(userId);
  }
  pendingImpersonation(userId: string): PendingImpersonation | null {
    return this.#impersonations.get(userId);
  }
  pendingImpersonations(): PendingImpersonation[] {
    return this.#impersonations.list();
  }

  // ── sessions and refresh tokens ───────────────────────────────────────────
  /** A session for a redeemed code; without `grant` it authenticated now and is not impersonated. */
  createSession(
    userId: string,
    organizationId: string | null,
    grant: { authTime?: number; impersonator?: Impersonator | null; authTimeClaim?: boolean } = {},
  ): { session: ProviderSession; refreshToken: string } {
    const now = this.#now();
    const session: ProviderSession = {
      id: `session_${ulid(now)}`,
      userId,
      organizationId,
      authTime: grant.authTime ?? now,
      authTimeClaim: grant.authTimeClaim ?? false,
      impersonator: grant.impersonator ?? null,
      createdAt: now,
      endedAt: null,
      endReason: null,
    };
    this.#sessions.set(session.id, session);
    const user = this.#users.get(userId);
    if (user) {
      user.lastSignInAt = new Date(now).toISOString();
      this.#directoryChanged();
    }
    this.#emit({ type: "session.created", session: { ...session } });
    return { session: { ...session }, refreshToken: this.#refreshTokens.mint(session.id) };
  }

  /**
   * Exchanges a refresh token for a new one (the old one is spent even if the exchange fails
   * later), optionally switching the session to another organization the user belongs to. Every
   * call is counted (`tokenStats`), reuse of a spent token separately. The session keeps its
   * `authTime` and impersonator: a refresh is not an authentication.
   */
  rotateRefreshToken(
    token: string,
    switchTo: string | null,
  ): Result<{ session: ProviderSession; refreshToken: string }, "unknown" | "used" | "session_ended" | "not_a_member"> {
    const spent = this.#refreshTokens.spend(token);
    if (!spent.ok) return spent;
    const session = this.#sessions.get(spent.sessionId);
    if (!session || session.endedAt !== null || !this.#users.has(session.userId)) {
      return { ok: false, reason: "session_ended" };
    }
    if (switchTo !== null && switchTo !== session.organizationId) {
      if (!this.membership(session.userId, switchTo)) return { ok: false, reason: "not_a_member" };
      session.organizationId = switchTo;
    }
    this.#refreshTokens.recordRotation(session.id);
    return { ok: true, value: { session: { ...session }, refreshToken: this.#refreshTokens.mint(session.id) } };
  }

  /** Every refresh-token grant and refused reuse since the last reset, in total and per session. */
  tokenStats(): RefreshStats {
    return this.#refreshTokens.stats();
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

  #directoryChanged(): void {
    for (const listener of this.#directoryListeners) listener();
  }

  #emit(event: StoreEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}
