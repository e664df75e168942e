/**
 * @module
 * The organizations' kill switches as session resolution sees them: the epoch each organization
 * published in KV (`org-epoch:{orgId}`), cached in the isolate for `ttlMs`, so a request pays no
 * round trip for it in the common case (a warm isolate; one KV read per organization per isolate
 * per `ttlMs` otherwise). A session of a member issued before an epoch is refused. A failed read
 * refuses nothing and is retried on the next request (the session objects still refuse in strict mode).
 */
import { orgEpochKey } from "../../../client-sdk/protocol/organization-controls";
import type { SessionRecord } from "./kv-session-store";

/** How long an isolate trusts an epoch it read (bounds how late eventual mode sees a new switch). */
export const EPOCH_CACHE_MS = 10_000;
const MAX_CACHED = 10_000;

export class OrganizationEpochs {
  readonly #kv: KVNamespace;
  readonly #clock: () => number;
  readonly #ttlMs: number;
  readonly #cache = new Map<string, { epoch: number | null; until: number }>();

  constructor(kv: KVNamespace, clock: () => number, ttlMs = EPOCH_CACHE_MS) {
    this.#kv = kv;
    this.#clock = clock;
    this.#ttlMs = ttlMs;
  }

  /** True when one of the record's organizations ended its members' sessions after this one was issued. */
  refuses(record: SessionRecord): boolean | Promise<boolean> {
    // The common case, every organization cached: answered synchronously, no promise at all.
    const now = this.#clock();
    let missing = false;
    for (const { organizationId } of record.memberships) {
      const cached = this.#cache.get(organizationId);
      if (!cached || cached.until <= now) missing = true;
      else if (cached.epoch !== null && record.createdAt < cached.epoch) return true;
    }
    if (!missing) return false;
    // The others are read together, not one after another.
    return Promise.all(record.memberships.map(({ organizationId }) => this.#epoch(organizationId))).then((epochs) =>
      epochs.some((epoch) => epoch !== null && record.createdAt < epoch),
    );
  }

  /** Forgets what this isolate knows of one organization (the switch was just thrown or lifted here). */
  forget(organizationId: string): void {
    this.#cache.delete(organizationId);
  }

  async #epoch(organizationId: string): Promise<number | null> {
    const now = this.#clock();
    const cached = this.#cache.get(organizationId);
    if (cached && cached.until > now) return cached.epoch;
    let epoch: number | null;
    try {
      const value = await this.#kv.get<{ epoch?: unknown }>(orgEpochKey(organizationId), "json");
      epoch = typeof value?.epoch === "number" ? value.epoch : null;
    } catch (err) {
      console.error("gatehouse: could not read an organization's epoch", err instanceof Error ? err.message : err);
      return null;
    }
    if (this.#cache.size >= MAX_CACHED) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(organizationId, { epoch, until: now + this.#ttlMs });
    return epoch;
  }
}
