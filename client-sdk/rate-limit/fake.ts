/**
 * @module
 * `RateLimiterFake`: the in-memory test double of the spec, and the global
 * `fakeRateLimiter()` / `restoreRateLimiter()`. While a fake is active, every
 * `KVRateLimiter` and `DORateLimiter` asks it instead of KV or a Durable
 * Object (checked per request, so limiters built earlier defer too). It never counts.
 */
import { RateLimitError } from "./errors";

type Outcome = "allowed" | "limited";

/**
 * Keys are allowed unless `limitKey` marked them. Assertions look at the
 * most recent check of a key.
 *
 * @example
 * ```ts
 * const fake = fakeRateLimiter();
 * fake.limitKey("203.0.113.7");
 * const res = await app.fetch(new Request("https://x/api", { headers: { "CF-Connecting-IP": "203.0.113.7" } }));
 * expect(res.status).toBe(429);
 * fake.assertLimited("203.0.113.7");
 * restoreRateLimiter();
 * ```
 */
export class RateLimiterFake {
  readonly #limited = new Set<string>();
  readonly #last = new Map<string, Outcome>();

  /** Marks the key limited for later checks. */
  limitKey(key: string): void {
    this.#limited.add(key);
  }

  /** Removes the key from the limited set. */
  allowKey(key: string): void {
    this.#limited.delete(key);
  }

  /** Records a check of `key` and says whether it is limited. Limiters call this. */
  check(key: string): { limited: boolean } {
    const limited = this.#limited.has(key);
    this.#last.set(key, limited ? "limited" : "allowed");
    return { limited };
  }

  /** Throws if the key was never checked, or its last check was allowed. */
  assertLimited(key: string): void {
    const last = this.#outcome(key, "assertLimited");
    if (last !== "limited") fail(`assertLimited: the last check of "${key}" was allowed`);
  }

  /** Throws if the key was never checked, or its last check was limited. */
  assertAllowed(key: string): void {
    const last = this.#outcome(key, "assertAllowed");
    if (last !== "allowed") fail(`assertAllowed: the last check of "${key}" was limited`);
  }

  /** Throws if the key was never checked. */
  assertChecked(key: string): void {
    this.#outcome(key, "assertChecked");
  }

  /** The keys checked so far, in first-check order. */
  checkedKeys(): string[] {
    return [...this.#last.keys()];
  }

  /** Clears limited keys and recorded checks. */
  reset(): void {
    this.#limited.clear();
    this.#last.clear();
  }

  #outcome(key: string, assertion: string): Outcome {
    const last = this.#last.get(key);
    if (last === undefined) fail(`${assertion}: "${key}" was never checked`);
    return last;
  }
}

function fail(message: string): never {
  throw new RateLimitError("assertion_failed", { message });
}

let active: RateLimiterFake | null = null;

/** Activates a fresh global fake and returns it; every limiter defers to it until `restoreRateLimiter()`. */
export function fakeRateLimiter(): RateLimiterFake {
  active = new RateLimiterFake();
  return active;
}

/** Deactivates the global fake; limiters use their stores again. */
export function restoreRateLimiter(): void {
  active = null;
}

/** The active global fake, or null. Limiters read this on every check. */
export function activeRateLimiterFake(): RateLimiterFake | null {
  return active;
}
