/**
 * Failing stand-ins for the fault cases. Local KV cannot be made to fail on
 * demand (miniflare's store has no fault injection), so `brokenKV` wraps the
 * real binding and rejects every call the way a KV outage does; this is the
 * only hand-made stand-in. Session and rate-limit objects fail for real: the
 * fixture classes in worker.ts throw inside the Durable Object.
 */

/** The message every stand-in throws: it names an internal address, so tests can prove it never reaches a client. */
export const INTERNAL_DETAIL = "storage exploded at 10.0.0.7";

/** A KV namespace whose every call rejects (reads, writes, deletes, lists). */
export function brokenKV(): KVNamespace {
  const fail = () => Promise.reject(new Error(`KV failed: 503 (${INTERNAL_DETAIL})`));
  return { get: fail, getWithMetadata: fail, put: fail, delete: fail, list: fail } as unknown as KVNamespace;
}

/** Which part of the auth worker's environment is down. */
export type Outage = "kv" | "user-sessions" | "rate-limiter";

/** `env` with one binding replaced by its failing twin (same object for the same `env`, so apps are reused). */
export function withOutage<E extends Cloudflare.Env>(env: E, outage: Outage): E {
  let byOutage = cache.get(env);
  if (!byOutage) {
    byOutage = new Map();
    cache.set(env, byOutage);
  }
  let broken = byOutage.get(outage);
  if (!broken) {
    broken =
      outage === "kv"
        ? { ...env, SESSIONS: brokenKV() }
        : outage === "user-sessions"
          ? { ...env, USER_SESSIONS: env.BROKEN_USER_SESSIONS }
          : { ...env, RATE_LIMITER: env.BROKEN_RATE_LIMITER };
    byOutage.set(outage, broken);
  }
  return broken as E;
}

const cache = new WeakMap<object, Map<Outage, Cloudflare.Env>>();
