/**
 * Impersonations armed on the local identity provider (`POST /__local/impersonations`, the
 * directory page): the next code issued for that user (optionally only into one organization)
 * signs in with WorkOS's `impersonator: { email, reason }`. At most one per user; a code takes it
 * away. Holds no directory and never checks membership: the store validates before arming.
 */

/** WorkOS's impersonator object: who signed in as the user, and why. */
export interface Impersonator {
  email: string;
  reason: string | null;
}

export interface PendingImpersonation {
  userId: string;
  impersonator: Impersonator;
  /** Only a code into this organization takes it; null: any code for the user. */
  organizationId: string | null;
  createdAt: number;
}

export class PendingImpersonations {
  readonly #byUser = new Map<string, PendingImpersonation>();

  /** Arms (or re-arms) an impersonation of `pending.userId`. */
  arm(pending: PendingImpersonation): PendingImpersonation {
    this.#byUser.set(pending.userId, { ...pending, impersonator: { ...pending.impersonator } });
    return this.#copy(pending);
  }

  /** Takes the impersonation a code for this user and organization carries, if one is armed. */
  take(userId: string, organizationId: string | null): Impersonator | null {
    const pending = this.#byUser.get(userId);
    if (!pending) return null;
    if (pending.organizationId !== null && pending.organizationId !== organizationId) return null;
    this.#byUser.delete(userId);
    return { ...pending.impersonator };
  }

  /** Disarms the impersonation of a user; the one removed, or null. */
  cancel(userId: string): PendingImpersonation | null {
    const pending = this.#byUser.get(userId);
    if (!pending) return null;
    this.#byUser.delete(userId);
    return pending;
  }

  get(userId: string): PendingImpersonation | null {
    const pending = this.#byUser.get(userId);
    return pending ? this.#copy(pending) : null;
  }

  list(): PendingImpersonation[] {
    return [...this.#byUser.values()].map((p) => this.#copy(p));
  }

  clear(): void {
    this.#byUser.clear();
  }

  #copy(pending: PendingImpersonation): PendingImpersonation {
    return { ...pending, impersonator: { ...pending.impersonator } };
  }
}
