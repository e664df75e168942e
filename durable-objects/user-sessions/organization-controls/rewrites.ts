/**
 * @module
 * The membership rewrite queue of a `UserSessions` object (table `kv_rewrites`):
 * after a provider membership event, every live session's KV record gets the
 * organization's latest state from `provider_memberships`. Bounded per
 * invocation (KV's 1,000 operations), one write per key per second, continued
 * by the object's alarm. It never resurrects a revoked session's record, and a
 * record it cannot rewrite after many tries is revoked (fail closed), never left stale.
 */
import { inPool } from "../../../client-sdk/core/pool";
import { isSessionRecord, KVSessionStore } from "../../../client-sdk/protocol/session-record";
import { objectNow } from "../../clock";
import { memberOf } from "../lifecycle/mirror";
import { applyOverrides, type Membership, type MembershipOverride } from "./memberships";

/** KV allows one write per second per key. */
export const KV_WRITE_SPACING_MS = 1_000;
/** A session that registers or slides this soon after a membership change gets it re-applied. */
export const CATCH_UP_MS = 90_000;
/** KV operations one invocation may spend on deletes and rewrites together (the limit is 1,000). */
export const KV_OPS_BUDGET = 950;
/** Keys per bulk KV read (one operation; KV's most). */
export const BULK_READ = 100;
/** KV writes in flight at once while rewriting (bench/webhooks measures the rewrite against this floor). */
export const PUT_PARALLELISM = 25;
const RETRY_DELAY_MS = 5_000;
/** After this many failed writes the session is revoked rather than left with a stale role. */
export const MAX_REWRITE_ATTEMPTS = 8;

export interface RewriteHost {
  sql: SqlStorage;
  kv: KVNamespace;
  /** Tells the session's open tabs its memberships changed. */
  notify(sessionId: string, memberships: Membership[], at: number): void;
  /** Revokes sessions whose record could not be rewritten (fail closed). */
  giveUp(sessionIds: string[]): Promise<unknown>;
  /** A rewritten record turned out revoked meanwhile: its KV delete must run again. */
  redelete(sessionId: string): void;
}

export interface DrainResult {
  rewritten: number;
  failed: boolean;
}

type Job = {
  rowid: number;
  organization_id: string;
  attempts: number;
};

/** How many sessions one invocation may rewrite after `opsUsed` other KV operations. */
export function rewriteLimit(opsUsed: number, batch: number): number {
  const left = KV_OPS_BUDGET - opsUsed;
  return Math.max(0, Math.min(batch, Math.floor((left * BULK_READ) / (BULK_READ + 1))));
}

export class RewriteQueue {
  readonly #host: RewriteHost;
  readonly #store: KVSessionStore;
  /** When this object last wrote each session's record (for the 1 write/s/key spacing). */
  readonly #lastWrite = new Map<string, number>();
  #running: Promise<DrainResult> | null = null;
  #again = false;

  constructor(host: RewriteHost) {
    this.#host = host;
    this.#store = new KVSessionStore(host.kv);
  }

  /** Queues `organizationId` for every live session; returns how many. A newer job replaces an older one. */
  enqueueLive(organizationId: string, now: number): number {
    const ids = this.#host.sql
      .exec<{ id: string }>("SELECT id FROM sessions WHERE expires_at > ?", now)
      .toArray()
      .map((r) => r.id);
    for (const id of ids) {
      this.#host.sql.exec(
        "INSERT OR REPLACE INTO kv_rewrites (session_id, organization_id, not_before, attempts) VALUES (?, ?, ?, 0)",
        id,
        organizationId,
        this.#notBefore(id, now),
      );
    }
    return ids.length;
  }

  /**
   * A session just registered or slid (its record was written from elsewhere,
   * possibly from memberships read before a recent change): re-applies every
   * change of the last `CATCH_UP_MS`, one second after that write.
   */
  catchUp(sessionId: string, now: number): number {
    return this.#host.sql.exec(
      `INSERT OR IGNORE INTO kv_rewrites (session_id, organization_id, not_before, attempts)
       SELECT ?, organization_id, ?, 0 FROM provider_memberships WHERE applied_at >= ?`,
      sessionId,
      now + KV_WRITE_SPACING_MS,
      now - CATCH_UP_MS,
    ).rowsWritten;
  }

  pending(): number {
    return Number(this.#host.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM kv_rewrites").one().n);
  }

  /** When the next queued rewrite is due (ms), or null when none is queued. */
  nextDue(): number | null {
    const t = this.#host.sql.exec<{ t: number | null }>("SELECT MIN(not_before) AS t FROM kv_rewrites").one().t;
    return t === null ? null : Number(t);
  }

  /** Rewrites up to `limit` due sessions. Single-flight: a call during a drain runs once more after it. */
  drain(limit: number): Promise<DrainResult> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    const run = async (): Promise<DrainResult> => {
      const total: DrainResult = { rewritten: 0, failed: false };
      do {
        this.#again = false;
        const once = await this.#drainOnce(limit);
        total.rewritten += once.rewritten;
        total.failed ||= once.failed;
      } while (this.#again);
      return total;
    };
    this.#running = run().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  #notBefore(sessionId: string, now: number): number {
    const last = this.#lastWrite.get(sessionId);
    return last === undefined ? now : Math.max(now, last + KV_WRITE_SPACING_MS);
  }

  async #drainOnce(limit: number): Promise<DrainResult> {
    const result: DrainResult = { rewritten: 0, failed: false };
    if (limit <= 0) return result;
    const ids = this.#host.sql
      .exec<{ session_id: string }>(
        "SELECT DISTINCT session_id FROM kv_rewrites WHERE not_before <= ? LIMIT ?",
        objectNow(),
        limit,
      )
      .toArray()
      .map((r) => r.session_id);
    const giveUp: string[] = [];
    // One pool over every due session: each write waits only for its own chunk's bulk read, and a
    // chunk's arrival starts the next one's, so past the first read the reads overlap the writes
    // instead of each standing between rounds of them.
    const reads: Promise<Map<string, unknown> | null>[] = [];
    const read = (chunk: number) =>
      (reads[chunk] ??= this.#host.kv
        .get(
          ids.slice(chunk * BULK_READ, (chunk + 1) * BULK_READ).map((id) => this.#store.key(id)),
          "json",
        )
        .catch((err: unknown) => {
          console.error("gatehouse: KV read failed during a membership rewrite; will retry", err);
          return null;
        }));
    const finished: Job[] = [];
    await inPool(ids, PUT_PARALLELISM, async (id, index) => {
      const chunk = Math.floor(index / BULK_READ);
      const records = await read(chunk);
      if ((chunk + 1) * BULK_READ < ids.length) void read(chunk + 1);
      if (records === null) {
        this.#failed(id, giveUp);
        result.failed = true;
        return;
      }
      const outcome = await this.#rewrite(id, records.get(this.#store.key(id)) ?? null, giveUp, finished);
      if (outcome === "written") result.rewritten++;
      if (outcome === "failed") result.failed = true;
    });
    // The written sessions' jobs go in one statement (one storage commit, not one per write); a
    // crash before it only means the same records are written again. A newer job has a new rowid.
    this.#deleteJobs(finished);
    this.#pruneLastWrites();
    if (giveUp.length > 0) await this.#host.giveUp(giveUp);
    return result;
  }

  async #rewrite(
    sessionId: string,
    value: unknown,
    giveUp: string[],
    finished: Job[],
  ): Promise<"written" | "unchanged" | "failed"> {
    const sql = this.#host.sql;
    const now = objectNow();
    // Read the jobs and the provider state now, after the KV read: a newer event replaces a job
    // (new rowid), so whatever arrives during the write below stays queued.
    const jobs = sql
      .exec<Job>(
        "SELECT rowid, organization_id, attempts FROM kv_rewrites WHERE session_id = ? AND not_before <= ?",
        sessionId,
        now,
      )
      .toArray();
    if (jobs.length === 0) return "unchanged";
    const done = () => this.#deleteJobs(jobs);
    const live = sql.exec("SELECT 1 FROM sessions WHERE id = ? AND expires_at > ?", sessionId, now).toArray().length;
    if (!live || !isSessionRecord(value) || value.id !== sessionId) {
      done(); // revoked, expired or gone: nothing to rewrite
      return "unchanged";
    }
    if (now >= Math.min(value.idleExpiresAt, value.absoluteExpiresAt)) {
      done();
      return "unchanged";
    }
    const overrides = this.#overrides(jobs.map((j) => j.organization_id));
    const applied = applyOverrides(value.memberships, overrides);
    if (applied.unnamed.length > 0) {
      console.warn("gatehouse: a new membership has no known organization slug; it appears at the next sign-in");
    }
    if (!applied.changed) {
      done();
      return "unchanged";
    }
    // A session whose current organization lost this person no longer names it: an app that scopes
    // data by `organizationId` must not keep serving a removed member that organization's data.
    const { organizationId: current, ...rest } = value;
    const stillMember = current !== undefined && applied.memberships.some((m) => m.organizationId === current);
    const record = { ...rest, memberships: applied.memberships, ...(stillMember ? { organizationId: current } : {}) };
    try {
      await this.#store.put(record);
    } catch (err) {
      console.error("gatehouse: KV write failed during a membership rewrite; will retry", err);
      this.#failed(sessionId, giveUp, jobs);
      return "failed";
    }
    const at = objectNow();
    this.#lastWrite.set(sessionId, at);
    finished.push(...jobs);
    // Revoked while the write was in flight: the write may have landed after the delete.
    if (sql.exec("SELECT 1 FROM tombstones WHERE id = ?", sessionId).toArray().length > 0) {
      this.#host.redelete(sessionId);
      return "written";
    }
    // The mirror's list follows the record's: a directory deactivation matches sessions by it.
    sql.exec(
      "UPDATE sessions SET member_of = ? WHERE id = ?",
      memberOf(applied.memberships.map((m) => m.organizationId)),
      sessionId,
    );
    if (current !== undefined && !stillMember) {
      // Its cached provider token was scoped to that organization too: the next one is asked for anew.
      sql.exec(
        "UPDATE sessions SET organization_id = NULL, access_token = NULL, access_expires_at = NULL WHERE id = ?",
        sessionId,
      );
    }
    this.#host.notify(sessionId, applied.memberships, at);
    return "written";
  }

  #overrides(organizationIds: string[]): MembershipOverride[] {
    const out: MembershipOverride[] = [];
    for (const id of organizationIds) {
      const row = this.#host.sql
        .exec<{ organization_slug: string | null; role: string | null }>(
          "SELECT organization_slug, role FROM provider_memberships WHERE organization_id = ?",
          id,
        )
        .toArray()[0];
      if (row) out.push({ organizationId: id, organizationSlug: row.organization_slug, role: row.role });
    }
    return out;
  }

  #deleteJobs(jobs: Job[]): void {
    if (jobs.length === 0) return;
    this.#host.sql.exec(
      "DELETE FROM kv_rewrites WHERE rowid IN (SELECT value FROM json_each(?))",
      JSON.stringify(jobs.map((j) => j.rowid)),
    );
  }

  #failed(sessionId: string, giveUp: string[], jobs?: Job[]): void {
    const sql = this.#host.sql;
    const rows =
      jobs ??
      sql
        .exec<Job>("SELECT rowid, organization_id, attempts FROM kv_rewrites WHERE session_id = ?", sessionId)
        .toArray();
    if (rows.some((j) => j.attempts + 1 >= MAX_REWRITE_ATTEMPTS)) {
      this.#deleteJobs(rows);
      giveUp.push(sessionId);
      return;
    }
    for (const job of rows) {
      sql.exec(
        "UPDATE kv_rewrites SET attempts = attempts + 1, not_before = ? WHERE rowid = ?",
        objectNow() + RETRY_DELAY_MS,
        job.rowid,
      );
    }
  }

  #pruneLastWrites(): void {
    const horizon = objectNow() - KV_WRITE_SPACING_MS;
    for (const [id, at] of this.#lastWrite) if (at < horizon) this.#lastWrite.delete(id);
  }
}
