/**
 * @module
 * `withDeadline(promise, ms, error)`: the promise, or a rejection with `error()` once `ms` have
 * passed, whichever comes first; the timer is always cleared. For calls whose own timeout cannot be
 * trusted (the WorkOS SDK's workerd client ignores its `timeout`) or must be bounded by the caller.
 * It never cancels the underlying work: that keeps running, its answer is ignored.
 */
export function withDeadline<T>(promise: PromiseLike<T>, ms: number, error: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
  });
  return Promise.race([Promise.resolve(promise), deadline]).finally(() => {
    if (timer !== undefined) clearTimeout(timer);
  });
}

/**
 * `work(signal)` within `ms`: past the deadline the signal is aborted (so a `fetch` given it stops,
 * and a late answer cannot follow a retry) and the promise rejects with `error()`. For outbound
 * requests whose whole exchange, body included, must end in time.
 */
export function withAbortDeadline<T>(
  work: (signal: AbortSignal) => PromiseLike<T>,
  ms: number,
  error: () => Error,
): Promise<T> {
  const abort = new AbortController();
  return withDeadline(work(abort.signal), ms, () => {
    abort.abort();
    return error();
  });
}
