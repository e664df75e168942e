/**
 * @module
 * `waitUntilOf(c)`: the execution context's `waitUntil` of a Hono context, as a
 * plain function, or undefined outside a worker's fetch (tests calling a handler
 * directly), where reading `c.executionCtx` throws. It never swallows the promise's errors.
 */

/** What `waitUntilOf` needs of a Hono context. */
export interface HasExecutionContext {
  readonly executionCtx: { waitUntil(promise: Promise<unknown>): void };
}

export type WaitUntil = (promise: Promise<unknown>) => void;

export function waitUntilOf(c: HasExecutionContext): WaitUntil | undefined {
  try {
    const exec = c.executionCtx;
    return (promise) => exec.waitUntil(promise);
  } catch {
    return undefined; // no ExecutionContext: called outside a worker's fetch
  }
}
