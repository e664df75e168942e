/**
 * The worker under test: the deployed auth worker with its Durable Objects and RPC entrypoint,
 * and `KvFloor`, the raw floor the revocation drain is measured against.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { inPool } from "../../client-sdk/core/pool";
import { KV_PARALLELISM, writeRevokedMark } from "../../durable-objects/user-sessions/revocation";

export {
  AuthService,
  default,
  OrganizationSessions,
  RateLimiterDO,
  UserSessions,
} from "../../workers/auth/worker";

/** Production's limit: KV operations one invocation may make. Miniflare does not enforce it, so the floor does. */
export const KV_OPS_PER_INVOCATION = 1_000;

/**
 * The floor of a revocation's KV drain: each call is one invocation that writes the same revoked
 * marks the drain writes (same key, value, TTL and metadata), `KV_PARALLELISM` in flight like
 * the drain, and nothing else: no SQLite, no sockets, no alarm.
 */
export class KvFloor extends WorkerEntrypoint<Cloudflare.Env> {
  async marks(ids: string[], userId: string, now: number): Promise<number> {
    if (ids.length > KV_OPS_PER_INVOCATION) throw new RangeError("more KV operations than one invocation may make");
    const results = await inPool(ids, KV_PARALLELISM, (id) => writeRevokedMark(this.env.SESSIONS, id, userId, now));
    if (results.some((r) => r.status === "rejected")) throw new Error("a KV write of the floor failed");
    return ids.length;
  }
}
