/**
 * @module
 * Leases of a hot key's budget, isolate side (issue 29). Once an isolate has
 * sent `HOT_AFTER_CHECKS` checks of a key in a window, `DORateLimiter` asks
 * its object for the batch plus a reserve, debited there at once, and admits
 * the reserve here, synchronously, with no call. The reserve doubles while
 * leases run out before they expire, falls to what was used when one expires
 * with tokens left (and the key cools down when that was less than the
 * smallest reserve), and never exceeds `limit / RESERVE_SHARE`. Unused tokens
 * go back (`release`) on the key's next call. The book only hands out tokens
 * the object granted, each once, before the lease's expiry and in its window:
 * it must never admit anything the object did not debit.
 */
import { perBindingScope } from "../core/isolate-scope";
import type { RateCheckResult } from "./protocol";

/** Checks of a key an isolate sends to its object in one window before it leases. */
export const HOT_AFTER_CHECKS = 16;
/** Smallest reserve: also where a key starts. */
export const MIN_RESERVE = 16;
/** A reserve never exceeds `limit / RESERVE_SHARE` (about 3 %): what an isolate that dies holding one can strand. */
export const RESERVE_SHARE = 32;
/** Most keys a book tracks per binding and policy; beyond it the oldest go first (their tokens stay debited). */
export const MAX_LEASED_KEYS = 10_000;
/**
 * How long an isolate stops leasing after a `lease` or `release` call failed (ms): an object still
 * running a version without them (Cloudflare keeps an object's old code for a while after a deploy
 * and for a whole gradual deployment) is asked one batch at a time meanwhile, never left unasked.
 */
export const LEASE_SUSPEND_MS = 60_000;

/** The largest reserve for `limit`; below `MIN_RESERVE` the policy never leases (limit < 512). */
export function reserveCap(limit: number): number {
  return Math.floor(limit / RESERVE_SHARE);
}

/** True when keys of this limit may be leased at all. */
export function leasable(limit: number): boolean {
  return reserveCap(limit) >= MIN_RESERVE;
}

/**
 * The reserve to ask for after a lease ended: twice as much when it ran out
 * (demand outran it), what was used when it ended with tokens left; within
 * [`MIN_RESERVE`, `reserveCap(limit)`].
 */
export function nextReserve(current: number, ended: { used: number; left: number }, limit: number): number {
  const next = ended.left === 0 ? current * 2 : ended.used;
  return Math.max(MIN_RESERVE, Math.min(reserveCap(limit), next));
}

/** A lease this isolate holds. Times are on the limiter's clock. */
export interface HeldLease {
  id: string;
  /** Tokens not yet admitted. */
  left: number;
  /** Tokens granted beyond the batch that took the lease. */
  reserved: number;
  /** Usable from (the window start with an injected clock, else 0) … */
  from: number;
  /** … until this instant: the send time plus the object's `ttlMs`. */
  until: number;
  resetAt: number;
  /** The object's `remaining` after the grant. */
  remaining: number;
}

/** A lease to give back. */
export interface LeaseReturn {
  id: string;
  unused: number;
}

interface KeyLeases {
  /** Window index (`sent` counts checks of this window only). */
  window: number;
  sent: number;
  reserve: number;
  held: HeldLease[];
  returns: LeaseReturn[];
}

export class LeaseBook {
  readonly #keys = new Map<string, KeyLeases>();
  /** Until when (ms) this book leases nothing (a lease or return failed). */
  #suspendedUntil = Number.NEGATIVE_INFINITY;
  readonly #limit: number;
  readonly #max: number;

  constructor(limit: number, max = MAX_LEASED_KEYS) {
    this.#limit = limit;
    this.#max = max;
  }

  /** Keys tracked. */
  get size(): number {
    return this.#keys.size;
  }

  /** Admits up to `count` checks of `key` from its leases at `now`; ended leases are retired on the way. */
  take(key: string, now: number, count = 1): RateCheckResult[] {
    const entry = this.#keys.get(key);
    const taken: RateCheckResult[] = [];
    if (!entry) return taken;
    while (taken.length < count && entry.held.length > 0) {
      const lease = entry.held[0]!;
      if (now >= lease.until || now >= lease.resetAt) {
        this.#retire(entry, now < lease.resetAt);
        continue;
      }
      // A lease taken in a later window than `now` (an injected clock read before it arrived) waits.
      if (now < lease.from) break;
      lease.left--;
      taken.push({ allowed: true, remaining: lease.remaining + lease.left, resetAt: lease.resetAt });
      if (lease.left === 0) this.#retire(entry, false);
    }
    // A key admitting from its lease is in use: it must not be the stalest when a spray of new keys evicts.
    if (taken.length > 0) {
      this.#keys.delete(key);
      this.#keys.set(key, entry);
    }
    return taken;
  }

  /** Stops leasing until `until` (ms): calls go one batch at a time; held leases and returns stay. */
  suspend(until: number): void {
    this.#suspendedUntil = Math.max(this.#suspendedUntil, until);
  }

  /** True while leasing is suspended at `now`. */
  suspended(now: number): boolean {
    return now < this.#suspendedUntil;
  }

  /** True when `key` is hot in this isolate at window `windowIndex`: the next call should lease. */
  isHot(key: string, windowIndex: number): boolean {
    const entry = this.#keys.get(key);
    if (!entry || entry.window !== windowIndex) return false;
    return entry.sent >= HOT_AFTER_CHECKS || entry.held.length > 0;
  }

  /** Notes `count` checks of `key` sent to the object in window `windowIndex`. */
  sent(key: string, windowIndex: number, count: number): void {
    const entry = this.#entry(key, windowIndex);
    entry.sent += count;
  }

  /** Tokens to ask for beyond the batch. */
  reserve(key: string): number {
    return this.#keys.get(key)?.reserve ?? MIN_RESERVE;
  }

  /** Leases of `key` that ended with tokens left, to give back before the next lease. */
  returnsDue(key: string): readonly LeaseReturn[] {
    return this.#keys.get(key)?.returns ?? [];
  }

  /** The object has credited (or, idempotently, already credited) this return. */
  returned(key: string, id: string): void {
    const entry = this.#keys.get(key);
    if (entry) entry.returns = entry.returns.filter((r) => r.id !== id);
  }

  /** Keeps a lease's tokens beyond the batch it answered. */
  hold(key: string, windowIndex: number, lease: HeldLease): void {
    const entry = this.#entry(key, windowIndex);
    if (lease.left > 0) entry.held.push(lease);
  }

  /** The entry of `key`, its `sent` count reset when the window moved on; touched as most recent. */
  #entry(key: string, windowIndex: number): KeyLeases {
    let entry = this.#keys.get(key);
    if (entry) {
      this.#keys.delete(key);
    } else {
      if (this.#keys.size >= this.#max) this.#evict();
      entry = { window: windowIndex, sent: 0, reserve: MIN_RESERVE, held: [], returns: [] };
    }
    if (entry.window !== windowIndex) {
      entry.window = windowIndex;
      entry.sent = 0;
    }
    this.#keys.set(key, entry);
    return entry;
  }

  /**
   * Ends the oldest held lease: its tokens go back when `giveBack` and any are left; the reserve
   * adapts; a key that used less than the smallest reserve over a lease's life cools down (it must
   * be sent `HOT_AFTER_CHECKS` checks again before it leases), so a lukewarm key does not pay a
   * lease and a return for every few checks.
   */
  #retire(entry: KeyLeases, giveBack: boolean): void {
    const lease = entry.held.shift()!;
    const used = Math.max(0, lease.reserved - lease.left);
    entry.reserve = nextReserve(entry.reserve, { used, left: lease.left }, this.#limit);
    if (lease.left > 0 && used < MIN_RESERVE) entry.sent = 0;
    if (giveBack && lease.left > 0) entry.returns.push({ id: lease.id, unused: lease.left });
  }

  #evict(): void {
    // Maps iterate in insertion order and entries are re-inserted when touched: the first is the stalest.
    for (const key of this.#keys.keys()) {
      this.#keys.delete(key);
      if (this.#keys.size < this.#max) return;
    }
  }
}

const books = /* @__PURE__ */ perBindingScope((): { book?: LeaseBook } => ({}));

/**
 * One book per binding object and policy, like the coalescer and the blocked-key memory: per isolate.
 * The scope (`prefix|limit|window`) already names the limit, so one slot per scope is enough.
 */
export function leaseBookFor(binding: object, scope: string, limit: number): LeaseBook {
  const slot = books(binding, scope);
  slot.book ??= new LeaseBook(limit);
  return slot.book;
}
