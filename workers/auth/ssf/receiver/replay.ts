/**
 * @module
 * Replayed SETs (`jti`): KV `ssf:jti:<SHA-256 hex of JSON [iss, jti]>` → "1", expiring after the
 * `iat` window (at least KV's 60-second floor), so a copy is refused while its `iat` would still
 * pass. KV, not an object: acting on a SET is idempotent (ending ended sessions ends nothing), so
 * the rare copy that slips past KV's eventual consistency between locations does no harm, and a
 * hot transmitter never queues behind one object. Never stores the SET itself.
 */
import { sha256Hex } from "../../crypto";

const PREFIX = "ssf:jti:";
/** KV refuses an `expirationTtl` under 60 seconds. */
const KV_MIN_TTL = 60;

export class SeenTokens {
  readonly #kv: KVNamespace;
  readonly #ttl: number;

  constructor(kv: KVNamespace, windowSeconds: number) {
    this.#kv = kv;
    this.#ttl = Math.max(KV_MIN_TTL, Math.ceil(windowSeconds));
  }

  /** True when this `jti` of `iss` was seen inside the window; else notes it and returns false. */
  async seen(iss: string, jti: string): Promise<boolean> {
    const key = await keyOf(iss, jti);
    if ((await this.#kv.get(key)) !== null) return true;
    await this.#kv.put(key, "1", { expirationTtl: this.#ttl });
    return false;
  }

  /** Forgets a `jti` (its SET could not be acted on: the transmitter's retry must get through). */
  async forget(iss: string, jti: string): Promise<void> {
    await this.#kv.delete(await keyOf(iss, jti));
  }
}

async function keyOf(iss: string, jti: string): Promise<string> {
  // JSON of the pair, not `iss + NUL + jti`: a jti carrying NUL must not re-split into another issuer's.
  return `${PREFIX}${await sha256Hex(JSON.stringify([iss, jti]))}`;
}
