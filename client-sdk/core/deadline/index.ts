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
