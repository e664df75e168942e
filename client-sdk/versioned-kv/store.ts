/**
 * @module
 * `VersionedKVStore`: content-addressed values in KV. `content:{sha256}`
 * holds the JSON, `ptr:{key}` the current hash. Every `put` leaves the value
 * readable for at least `contentTtl` from that put; it must never write what KV
 * already holds for that long: a repeated `put` costs one read and, within the
 * refresh window, no write (see ARCHITECTURE.md for every method's cost).
 */
import { KV_MIN_TTL_SECONDS, KVStore } from "../bindings/kv";
import { sha256Hex } from "../core/digest";
import { VersionedKVError } from "./errors";
import { KV_MAX_VALUE_BYTES, toJson } from "./serialize";

/** Spec: VersionedKVOptions. */
export interface VersionedKVOptions {
  /** Lifetime of `content:{hash}` keys in seconds: an integer >= 60. Default 86400. */
  contentTtl?: number;
  /**
   * Clock in milliseconds since the epoch, injectable for tests. Default `Date.now`. Content
   * expirations are absolute times from this clock, so it must not run behind KV's (KV refuses an
   * expiration under 60 s ahead; ours are at least 90 s ahead).
   */
  now?: () => number;
}

/**
 * Metadata of a `ptr:{key}` entry: the content hashes this key pointed to
 * recently (current first) with the Unix second their content expires. It is
 * what lets a `put` know, from the pointer read alone, that content exists.
 */
export interface PointerMetadata {
  known: [hash: string, expiresAt: number][];
}

export const DEFAULT_CONTENT_TTL = 86_400;
/**
 * Content is written to expire `contentTtl` plus this window after the put that writes it (half the
 * TTL, at most an hour), so puts during the window still find it alive for a full `contentTtl` and
 * write nothing: at most one content write per window per value, however often it is put.
 */
const MAX_REFRESH_WINDOW = 3_600;
/** How many recent versions a pointer remembers (about 80 bytes each; KV metadata max 1024). */
const KNOWN_VERSIONS = 8;
/** KV's longest key is 512 bytes; `ptr:` takes 4. */
const MAX_KEY_BYTES = 512 - "ptr:".length;
const encoder = new TextEncoder();

/**
 * @example
 * ```ts
 * const flags = new VersionedKVStore(env.KV, { contentTtl: 3600 });
 * const version = await flags.put("flags", { beta: true }); // SHA-256 hex
 * await flags.get<{ beta: boolean }>("flags"); // { beta: true }
 * await flags.isCurrent("flags", version); // true
 * ```
 */
export class VersionedKVStore {
  readonly #kv: KVNamespace;
  readonly #ttl: number;
  readonly #window: number;
  readonly #now: () => number;

  constructor(kv: KVStore | KVNamespace, options: VersionedKVOptions = {}) {
    this.#kv = kv instanceof KVStore ? kv.raw : kv;
    const ttl = options.contentTtl ?? DEFAULT_CONTENT_TTL;
    if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl < KV_MIN_TTL_SECONDS) {
      throw new VersionedKVError("invalid_option", {
        message: `VersionedKVStore: contentTtl must be an integer number of seconds >= ${KV_MIN_TTL_SECONDS} (KV's minimum expiry), got ${String(ttl)}`,
      });
    }
    this.#ttl = ttl;
    this.#window = Math.min(Math.floor(ttl / 2), MAX_REFRESH_WINDOW);
    this.#now = options.now ?? Date.now;
  }

  /**
   * Stores `value` and points `key` at it; returns the SHA-256 hex of its JSON.
   * Spec: the content then lives at least `contentTtl` from this put (KV's own
   * `expiration`, from the same clock as the pointer's record of it).
   * KV cost: 1 read, then 0 writes when the value is current and its content
   * still has `contentTtl` left; 1 write (pointer) when the pointer's metadata
   * shows the content exists with that much life left; else 2 writes, content
   * first (to live `contentTtl` + the refresh window), so a reader never sees a
   * pointer to nothing.
   */
  async put<T>(key: string, value: T): Promise<string> {
    const pointerKey = checkKey(key);
    const bytes = encoder.encode(toJson(value));
    if (bytes.byteLength > KV_MAX_VALUE_BYTES) {
      throw new VersionedKVError("value_too_large", {
        message: `VersionedKVStore: the value of ${JSON.stringify(key)} is ${bytes.byteLength} bytes as JSON; KV's limit is ${KV_MAX_VALUE_BYTES}`,
      });
    }
    const hash = await sha256Hex(bytes);
    const pointer = await this.#kv.getWithMetadata<PointerMetadata>(pointerKey, "text");

    const now = Math.floor(this.#now() / 1000);
    const known = knownVersions(pointer.metadata, now);
    const expiresAt = known.find(([h]) => h === hash)?.[1];
    const livesFullTtl = expiresAt !== undefined && expiresAt - now >= this.#ttl;
    if (livesFullTtl && pointer.value === hash) return hash;

    let contentExpiresAt = expiresAt ?? 0;
    if (!livesFullTtl) {
      // An absolute expiration from our clock: KV's expiry is exactly what the pointer records.
      contentExpiresAt = now + this.#ttl + this.#window;
      await this.#kv.put(`content:${hash}`, bytes, { expiration: contentExpiresAt });
    }
    const current: [string, number] = [hash, contentExpiresAt];
    const metadata: PointerMetadata = {
      known: [current, ...known.filter(([h]) => h !== hash)].slice(0, KNOWN_VERSIONS),
    };
    await this.#kv.put(pointerKey, hash, { metadata });
    return hash;
  }

  /**
   * The current value, or null when the pointer or its content is missing
   * (content expires no sooner than `contentTtl` after the last put of it).
   * KV cost: 1 read when there is no pointer, else 2.
   */
  async get<T>(key: string): Promise<T | null> {
    const hash = await this.#kv.get(checkKey(key), "text");
    if (hash === null) return null;
    return this.#kv.get<T>(`content:${hash}`, "json");
  }

  /** The current hash, without fetching content. KV cost: 1 read. */
  getVersion(key: string): Promise<string | null> {
    return this.#kv.get(checkKey(key), "text");
  }

  /** True when `key` currently points at `hash`. KV cost: 1 read. */
  async isCurrent(key: string, hash: string): Promise<boolean> {
    return (await this.getVersion(key)) === hash;
  }

  /**
   * Deletes the pointer only; content keys expire by their TTL (another key
   * may share them). KV cost: 1 delete.
   */
  delete(key: string): Promise<void> {
    return this.#kv.delete(checkKey(key));
  }
}

/** `ptr:{key}`, or a clear error for a key KV would refuse. */
function checkKey(key: string): string {
  if (typeof key !== "string") {
    throw new VersionedKVError("invalid_key", { message: "VersionedKVStore: key must be a string" });
  }
  if (encoder.encode(key).byteLength > MAX_KEY_BYTES) {
    throw new VersionedKVError("invalid_key", {
      message: `VersionedKVStore: key is longer than ${MAX_KEY_BYTES} bytes (KV's 512-byte limit minus "ptr:")`,
    });
  }
  return `ptr:${key}`;
}

/** The pointer's remembered versions whose content has not expired; tolerant of foreign metadata. */
function knownVersions(metadata: PointerMetadata | null, now: number): [string, number][] {
  const list = metadata?.known;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (entry): entry is [string, number] =>
      Array.isArray(entry) && typeof entry[0] === "string" && typeof entry[1] === "number" && entry[1] > now,
  );
}
