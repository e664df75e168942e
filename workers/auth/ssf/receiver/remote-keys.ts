/**
 * @module
 * A transmitter's public keys fetched from its `jwksUri` (RFC 7517 set) and kept per isolate, aged
 * by the receiver's clock (`now`, never the wall clock, so rotation is testable without sleeping).
 * Any failed fetch is `KeysUnavailable` (the caller answers 503 and the transmitter retries), never a
 * verdict on the SET. Never trusts a set older than `JWKS_MAX_AGE_MS`, even when the refetch fails.
 */
import {
  type CryptoKey,
  createLocalJWKSet,
  errors,
  type FlattenedJWSInput,
  type JWSHeaderParameters,
  type LocalJWKSet,
} from "jose";

/** A fetched set is used this long; the next SET after that fetches it again (a removed key dies). */
export const JWKS_MAX_AGE_MS = 10 * 60 * 1000;
/** A `kid` the set lacks fetches it again (a new key), at most once per this long (no fetch floods). */
export const JWKS_COOLDOWN_MS = 30 * 1000;
/** A JWKS that has not answered by then is unavailable. */
export const JWKS_TIMEOUT_MS = 5 * 1000;

/** A transmitter's JWKS could not be fetched: not the sender's fault, so not a 400. */
export class KeysUnavailable extends Error {
  override name = "KeysUnavailable";
}

/**
 * The rules: the first SET fetches the set; a SET at or after `fetchedAt + JWKS_MAX_AGE_MS` fetches
 * it again before anything is checked; a SET whose `kid` the set lacks fetches it again when the last
 * fetch is at least `JWKS_COOLDOWN_MS` old, else it is refused (`JWKSNoMatchingKey`, invalid_key).
 * A failed fetch changes nothing cached.
 */
export class RemoteKeys {
  readonly #url: URL;
  #keys: LocalJWKSet | null = null;
  #fetchedAt = 0;

  constructor(url: URL) {
    this.#url = url;
  }

  async getKey(header: JWSHeaderParameters, token: FlattenedJWSInput, now: number): Promise<CryptoKey> {
    let keys = this.#keys;
    if (keys === null || now - this.#fetchedAt >= JWKS_MAX_AGE_MS) keys = await this.#fetch(now);
    try {
      return await keys(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey) || now - this.#fetchedAt < JWKS_COOLDOWN_MS) throw err;
    }
    return (await this.#fetch(now))(header, token);
  }

  async #fetch(now: number): Promise<LocalJWKSet> {
    let keys: LocalJWKSet;
    try {
      const res = await fetch(this.#url, {
        headers: { Accept: "application/jwk-set+json, application/json" },
        redirect: "manual",
        signal: AbortSignal.timeout(JWKS_TIMEOUT_MS),
      });
      if (res.status !== 200) {
        await res.body?.cancel();
        throw new KeysUnavailable();
      }
      keys = createLocalJWKSet(await res.json());
    } catch {
      // Unreachable, timed out, not 200, not JSON, not a JWK set: the transmitter's side, retry later.
      throw new KeysUnavailable();
    }
    this.#keys = keys;
    this.#fetchedAt = now;
    return keys;
  }
}
