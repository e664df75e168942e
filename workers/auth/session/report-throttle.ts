/**
 * @module
 * How often one isolate tells a user's timeline about the same thing (a revoked cookie used again,
 * a session locked out by a rate limit): once per key per window, in a bounded map (oldest key
 * dropped first). The session object dedupes too; this only saves the round trip under a flood.
 */

/** One report per key per this many ms, per isolate. */
export const REPORT_WINDOW_MS = 10 * 60 * 1000;
const MAX_KEYS = 1024;

export class ReportThrottle {
  readonly #last = new Map<string, number>();

  constructor(readonly windowMs = REPORT_WINDOW_MS) {}

  /** True (and remembered) when `key` was not reported within the window before `now`. */
  admit(key: string, now: number): boolean {
    const last = this.#last.get(key);
    if (last !== undefined && now - last < this.windowMs) return false;
    this.#last.delete(key);
    if (this.#last.size >= MAX_KEYS) this.#last.delete(this.#last.keys().next().value!);
    this.#last.set(key, now);
    return true;
  }
}
