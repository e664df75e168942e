/**
 * The local identity provider's refresh tokens: single use (a token is spent the moment it is
 * presented, whatever happens next), each bound to one provider session, and a tally of every
 * refresh-token grant and every attempt to reuse a spent token, per session, so tests can prove a
 * relying party refreshes once and never sends a token twice. Holds no sessions and never signs.
 */
import { randomSecret } from "./ids.ts";

/** The tally of one session (or of all sessions): grants seen, tokens rotated, spent tokens refused. */
export interface RefreshTally {
  /** Every refresh-token grant that reached the provider (an injected fault answers before it). */
  refreshCalls: number;
  /** Grants that issued a new token pair. */
  rotated: number;
  /** Presentations of a token already spent. */
  refusedReuse: number;
}

export interface RefreshStats extends RefreshTally {
  bySession: Record<string, RefreshTally>;
}

export type SpendRefusal = "unknown" | "used";

export class RefreshTokenLedger {
  /** token → the session it belongs to and whether it was presented already. */
  readonly #tokens = new Map<string, { sessionId: string; used: boolean }>();
  #total: RefreshTally = emptyTally();
  readonly #bySession = new Map<string, RefreshTally>();

  /** A fresh, unspent token for `sessionId`. */
  mint(sessionId: string): string {
    const token = randomSecret(32);
    this.#tokens.set(token, { sessionId, used: false });
    return token;
  }

  /**
   * Counts one refresh-token grant and spends `token`: the session it belongs to, or why not.
   * A spent token stays spent even if the grant fails afterwards.
   */
  spend(token: string): { ok: true; sessionId: string } | { ok: false; reason: SpendRefusal } {
    this.#total.refreshCalls++;
    const entry = this.#tokens.get(token);
    if (!entry) return { ok: false, reason: "unknown" };
    const tally = this.#tally(entry.sessionId);
    tally.refreshCalls++;
    if (entry.used) {
      this.#total.refusedReuse++;
      tally.refusedReuse++;
      return { ok: false, reason: "used" };
    }
    entry.used = true;
    return { ok: true, sessionId: entry.sessionId };
  }

  /** Records that a grant for `sessionId` issued a new token pair. */
  recordRotation(sessionId: string): void {
    this.#total.rotated++;
    this.#tally(sessionId).rotated++;
  }

  stats(): RefreshStats {
    const bySession: Record<string, RefreshTally> = {};
    for (const [id, tally] of this.#bySession) bySession[id] = { ...tally };
    return { ...this.#total, bySession };
  }

  clear(): void {
    this.#tokens.clear();
    this.#bySession.clear();
    this.#total = emptyTally();
  }

  #tally(sessionId: string): RefreshTally {
    let tally = this.#bySession.get(sessionId);
    if (!tally) {
      tally = emptyTally();
      this.#bySession.set(sessionId, tally);
    }
    return tally;
  }
}

function emptyTally(): RefreshTally {
  return { refreshCalls: 0, rotated: 0, refusedReuse: 0 };
}
