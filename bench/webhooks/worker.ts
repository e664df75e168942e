/**
 * The worker under test: the deployed auth worker with its Durable Objects and RPC entrypoint,
 * and `KvFloor`, the raw floor the membership rewrite is measured against.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { KVSessionStore, type SessionRecord } from "../../client-sdk/protocol/session-record";
import { BULK_READ, PUT_PARALLELISM } from "../../durable-objects/user-sessions/organization-controls/rewrites";
import { floorWrites } from "../kv-floor";

export { AuthService, default, UserSessions } from "../../workers/auth/worker";

/**
 * The floor of a rewrite: one invocation (production allows 1,000 KV operations in one) that puts
 * the same records the rewrite puts, `PUT_PARALLELISM` in flight like the rewrite, and nothing
 * else: no webhook, no SQLite, no reads, no tabs told.
 */
export class KvFloor extends WorkerEntrypoint<Cloudflare.Env> {
  puts(records: SessionRecord[]): Promise<number> {
    const store = new KVSessionStore(this.env.SESSIONS);
    return floorWrites(records, PUT_PARALLELISM, (record) => store.put(record));
  }

  /**
   * The floor of a read-modify-write, the least a rewrite can do: the sessions' records read in
   * bulk (`BULK_READ` keys per operation, as the rewrite reads them) and put back with `role`,
   * `PUT_PARALLELISM` in flight; the reads and the puts together stay within one invocation's
   * KV operations.
   */
  async readAndPut(ids: string[], role: string): Promise<number> {
    const records = await recordsWithRole(this.env.SESSIONS, ids, role);
    const store = new KVSessionStore(this.env.SESSIONS);
    const reads = Math.ceil(ids.length / BULK_READ);
    await floorWrites(records, PUT_PARALLELISM, (record) => store.put(record), reads);
    return records.length;
  }
}

/** The sessions' records read in bulk (`BULK_READ` keys per operation, as the rewrite reads them), with `role` in every membership. */
export async function recordsWithRole(kv: KVNamespace, ids: string[], role: string): Promise<SessionRecord[]> {
  const store = new KVSessionStore(kv);
  const records: SessionRecord[] = [];
  for (let i = 0; i < ids.length; i += BULK_READ) {
    const values = await kv.get(
      ids.slice(i, i + BULK_READ).map((id) => store.key(id)),
      "json",
    );
    for (const value of values.values()) {
      const r = value as SessionRecord;
      records.push({ ...r, memberships: r.memberships.map((m) => ({ ...m, role })) });
    }
  }
  return records;
}
