/**
 * The worker under test: the deployed auth worker with its Durable Objects and RPC entrypoint,
 * and `KvFloor`, the raw floor the revocation drain is measured against.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { KV_PARALLELISM, writeRevokedMark } from "../../durable-objects/user-sessions/lifecycle/revocation";
import { floorWrites } from "../kv-floor";

export {
  AuthService,
  default,
  OrganizationSessions,
  RateLimiterDO,
  UserSessions,
} from "../../workers/auth/worker";

/**
 * The floor of a revocation's KV drain: each call is one invocation that writes the same revoked
 * marks the drain writes (same key, value, TTL and metadata), `KV_PARALLELISM` in flight like
 * the drain, and nothing else: no SQLite, no sockets, no alarm.
 */
export class KvFloor extends WorkerEntrypoint<Cloudflare.Env> {
  marks(ids: string[], userId: string, now: number): Promise<number> {
    return floorWrites(ids, KV_PARALLELISM, (id) => writeRevokedMark(this.env.SESSIONS, id, userId, now));
  }
}
