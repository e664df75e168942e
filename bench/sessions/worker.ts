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
 * The floors of a revocation's KV drain: each call is one invocation that writes the same revoked
 * marks the drain writes (same key, value, TTL and metadata) and nothing else: no SQLite, no
 * sockets, no alarm. `width` writes in flight: `KV_PARALLELISM` like the drain by default, or any
 * other the bench tries for the fastest floor (never more than one invocation's KV operations).
 */
export class KvFloor extends WorkerEntrypoint<Cloudflare.Env> {
  marks(ids: string[], userId: string, now: number, width: number = KV_PARALLELISM): Promise<number> {
    return floorWrites(ids, width, (id) => writeRevokedMark(this.env.SESSIONS, id, userId, now));
  }
}
