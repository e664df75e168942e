/**
 * @module
 * `KVRateLimiter`: an approximate fixed-window limiter over Workers KV.
 * KV has no atomic increment, allows one write per second per key and
 * expires keys no sooner than 60 s, so each isolate counts locally, refreshes
 * a key from KV when its copy is over a second old and writes it at most once
 * per second. Requests share only plain data, never a promise or an I/O
 * object (Workers forbid I/O on behalf of another request). Exact within an
 * isolate; across isolates it can over-admit (ARCHITECTURE.md "Rate limiting").
 */
import { KV_MIN_TTL_SECONDS, type KVStore } from "../bindings/kv";
import { perBindingScope } from "../core/isolate-scope";
import type { RateLimiterOptions } from "./config";
import { RateLimiter } from "./limiter";
import { type BlockedKeys, blockedKeysFor } from "./memory";
import type { RateCheckResult } from "./protocol";
import { fixedWindow, retryAfterSeconds } from "./window";

/** Least time between two reads, and between two writes, of one KV key from one isolate. */
export const KV_SYNC_INTERVAL_MS = 1000;
/** Most keys whose counts one isolate keeps per limiter scope. */
export const MAX_KV_WINDOWS = 10_000;

/** What one isolate knows about one key's current window. */
interface WindowCount {
  index: number;
  /** The highest count this isolate has read from or written to KV. */
  stored: number;
  /** Admitted here and not yet written. */
  pending: number;
  readAt: number;
  /** When the last write started: the next may start a second later. */
  writeAt: number;
}

/** This isolate's window counts, per KV binding and policy. */
const countsFor = perBindingScope(() => new Map<string, WindowCount>());

/**
 * @example
 * ```ts
 * const limiter = new KVRateLimiter(new KVStore(env.RATE_LIMIT_KV), { limit: 100, window: 60 });
 * app.use(limiter);
 * ```
 */
export class KVRateLimiter extends RateLimiter {
  protected readonly storeName = "kv";
  readonly #kv: KVStore;

  constructor(kv: KVStore, config: RateLimiterOptions) {
    super(config);
    this.#kv = kv;
  }

  /** The KV key of `key`'s window `index`: `<prefix><window>s:<limit>:<index>:<key>`. */
  kvKey(key: string, index: number): string {
    return `${this.options.prefix}${this.window}s:${this.limit}:${index}:${key}`;
  }

  protected override blockedKeys(): BlockedKeys {
    return blockedKeysFor(this.#kv.raw, this.scope);
  }

  protected async consult(key: string, now: number): Promise<RateCheckResult> {
    const { index, resetAt } = fixedWindow(now, this.window);
    const count = this.#count(key, index);
    const kvKey = this.kvKey(key, index);
    // A copy over a second old is refreshed by the request that finds it so, in its own request;
    // KV limits writes per key, not reads.
    if (now - count.readAt >= KV_SYNC_INTERVAL_MS) await this.#read(count, kvKey, now);
    // From here to the decision nothing awaits, so concurrent checks in this isolate cannot overshoot.
    const used = count.stored + count.pending;
    if (used >= this.limit) {
      return { allowed: false, remaining: 0, retryAfter: retryAfterSeconds(resetAt, now), resetAt };
    }
    count.pending++;
    const remaining = this.limit - used - 1;
    if (now - count.writeAt >= KV_SYNC_INTERVAL_MS) await this.#write(count, kvKey, now, resetAt);
    return { allowed: true, remaining, resetAt };
  }

  #count(key: string, index: number): WindowCount {
    const map = countsFor(this.#kv.raw, this.scope);
    let count = map.get(key);
    if (count && count.index === index) return count;
    if (!count && map.size >= MAX_KV_WINDOWS) evictOld(map, index);
    // A new window: whatever the last one left unwritten no longer matters.
    count = { index, stored: 0, pending: 0, readAt: Number.NEGATIVE_INFINITY, writeAt: Number.NEGATIVE_INFINITY };
    map.set(key, count);
    return count;
  }

  async #read(count: WindowCount, kvKey: string, now: number): Promise<void> {
    const text = await this.withTimeout(this.#kv.get(kvKey));
    const value = text === null ? 0 : Number.parseInt(text, 10);
    // KV reads can be stale: never let a count go backwards.
    if (Number.isSafeInteger(value) && value > count.stored) count.stored = value;
    if (now > count.readAt) count.readAt = now;
  }

  async #write(count: WindowCount, kvKey: string, now: number, resetAt: number): Promise<void> {
    // Claimed before the await: no other request writes this key within the next second,
    // even if this write fails or its request is cancelled.
    count.writeAt = now;
    const flushed = count.pending;
    const value = count.stored + flushed;
    // The key must outlive its window and KV refuses a TTL under 60 s.
    const expirationTtl = Math.max(KV_MIN_TTL_SECONDS, Math.ceil((resetAt - now) / 1000));
    await this.withTimeout(this.#kv.put(kvKey, String(value), { expirationTtl }));
    if (value > count.stored) count.stored = value;
    count.pending -= flushed;
  }
}

function evictOld(map: Map<string, WindowCount>, index: number): void {
  for (const [key, count] of map) if (count.index < index) map.delete(key);
  for (const key of map.keys()) {
    if (map.size < MAX_KV_WINDOWS) break;
    map.delete(key);
  }
}
