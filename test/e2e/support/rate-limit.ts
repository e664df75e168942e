/**
 * Counting a fixed-window limit from the limiter's own answers, with no clock of the test's own.
 * Every answer that passed a Gatehouse limiter carries the draft-10 headers: `RateLimit-Policy`
 * (`"name";q=<limit>;w=<window seconds>`) and `RateLimit` (`"name";r=<left>;t=<seconds until the
 * window ends>`). Windows are fixed: one may end between two requests, and the count starts again.
 * The tally sees it (the window's end jumps on by about a whole window) and counts afresh, so a
 * test keeps going until the limit is reached within one window, bounded by a number of requests,
 * never by a sleep, a deadline or the machine's speed.
 */

/** An answer's headers: Playwright's (lower-case names) or fetch's. */
export type HeaderSource = Headers | Record<string, string>;

function header(headers: HeaderSource, name: string): string | null {
  return headers instanceof Headers ? headers.get(name) : (headers[name.toLowerCase()] ?? null);
}

export interface RateLimitPolicy {
  name: string;
  limit: number;
  windowSeconds: number;
}

export interface RateLimitState {
  name: string;
  /** Requests left in the window (`r`). */
  remaining: number;
  /** Whole seconds until the window ends (`t`). */
  resetSeconds: number;
}

/** The answer's `RateLimit-Policy`; throws if it has none (the request did not pass a limiter). */
export function rateLimitPolicyOf(headers: HeaderSource): RateLimitPolicy {
  const value = header(headers, "RateLimit-Policy");
  const match = /^"([^"]*)";q=(\d+);w=(\d+)$/.exec(value ?? "");
  if (!match) throw new Error(`no RateLimit-Policy header on the answer (got ${JSON.stringify(value)})`);
  return { name: match[1]!, limit: Number(match[2]), windowSeconds: Number(match[3]) };
}

/** The answer's `RateLimit`; throws if it has none. */
export function rateLimitOf(headers: HeaderSource): RateLimitState {
  const value = header(headers, "RateLimit");
  const match = /^"([^"]*)";r=(\d+);t=(\d+)$/.exec(value ?? "");
  if (!match) throw new Error(`no RateLimit header on the answer (got ${JSON.stringify(value)})`);
  return { name: match[1]!, remaining: Number(match[2]), resetSeconds: Number(match[3]) };
}

/**
 * The admitted and refused answers of one limit, per fixed window, as the limiter reports them.
 * `observe` every answer of the limit, in the order they were sent (for requests sent together:
 * once all of them are answered). A window's `t` only goes down while it lasts; the next window's
 * starts near its whole length. So an answer whose `t` is more than half a window above the last
 * one's opened a new window (the counts start again), and one more than half a window below it
 * was decided in the previous window (a request sent together with others; not counted). This
 * holds while consecutive answers come less than a quarter of a window apart.
 */
export class WindowTally {
  /** The limit's policy, from the first answer (every later one must name the same). */
  policy: RateLimitPolicy | undefined;
  /** Windows seen so far (1 after the first answer); a new one each time the window turns. */
  windows = 0;
  /** Answers admitted in the newest window. */
  admitted = 0;
  /** Answers refused in the newest window. */
  refused = 0;
  #lastReset = 0;

  /**
   * Counts one answer, admitted or refused by the limiter. Returns the window it fell in
   * (`windows` for the newest; `windows - 1` for an answer decided before the latest turn).
   */
  observe(headers: HeaderSource, admitted: boolean): number {
    const policy = rateLimitPolicyOf(headers);
    const state = rateLimitOf(headers);
    if (state.name !== policy.name) throw new Error(`RateLimit of "${state.name}" beside the policy "${policy.name}"`);
    if (!this.policy) this.policy = policy;
    else if (policy.name !== this.policy.name || policy.windowSeconds !== this.policy.windowSeconds) {
      throw new Error(`answers of two limits in one tally: "${this.policy.name}" and "${policy.name}"`);
    }
    const half = policy.windowSeconds / 2;
    if (this.windows > 0 && state.resetSeconds < this.#lastReset - half) return this.windows - 1;
    if (this.windows === 0 || state.resetSeconds > this.#lastReset + half) {
      this.windows++;
      this.admitted = 0;
      this.refused = 0;
    }
    this.#lastReset = state.resetSeconds;
    if (admitted) this.admitted++;
    else this.refused++;
    return this.windows;
  }
}
