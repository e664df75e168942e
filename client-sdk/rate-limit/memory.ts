/**
 * @module
 * Blocked-key memory: once a store says a key is over its limit, the
 * isolate answers that key itself until the window ends, with no store round
 * trip. It only ever denies, so it can never admit more than the store would.
 * Bounded in size; it must never keep a key past the window end the store gave.
 */
import { perBindingScope } from "../core/isolate-scope";

/** Most keys remembered per store scope; beyond it the oldest entries go first. */
export const MAX_BLOCKED_KEYS = 10_000;

export class BlockedKeys {
  readonly #until = new Map<string, number>();
  readonly #max: number;

  constructor(max = MAX_BLOCKED_KEYS) {
    this.#max = max;
  }

  /** The window end a denied `key` is remembered until, or undefined when it is not blocked at `now`. */
  blockedUntil(key: string, now: number): number | undefined {
    const until = this.#until.get(key);
    if (until === undefined) return undefined;
    if (now < until) return until;
    this.#until.delete(key);
    return undefined;
  }

  /** Remembers `key` as denied until `resetAt` (ms). */
  block(key: string, resetAt: number, now: number): void {
    if (resetAt <= now) return;
    this.#until.delete(key);
    if (this.#until.size >= this.#max) this.#evict(now);
    this.#until.set(key, resetAt);
  }

  get size(): number {
    return this.#until.size;
  }

  clear(): void {
    this.#until.clear();
  }

  #evict(now: number): void {
    for (const [key, until] of this.#until) if (until <= now) this.#until.delete(key);
    // Still full: Maps iterate in insertion order, so the first entries are the oldest.
    for (const key of this.#until.keys()) {
      if (this.#until.size < this.#max) break;
      this.#until.delete(key);
    }
  }
}

/**
 * The memory shared by every limiter over the same binding object and the
 * same policy, so a limiter built per request still benefits.
 */
export const blockedKeysFor: (binding: object, scope: string) => BlockedKeys = /* @__PURE__ */ perBindingScope(
  () => new BlockedKeys(),
);
