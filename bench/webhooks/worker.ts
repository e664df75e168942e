/**
 * The worker under test: the deployed auth worker with its Durable Objects and RPC entrypoint,
 * and `KvFloor`, the raw floor the membership rewrite is measured against.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { KVSessionStore, type SessionRecord } from "../../client-sdk/protocol/session-record";
import { PUT_PARALLELISM } from "../../durable-objects/user-sessions/rewrites";
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
}
