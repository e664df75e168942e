/**
 * @module
 * `releaseRpcResult`: disposes what a Workers RPC call answered, once the caller has what it needs.
 * The runtime gives every RPC result a `Symbol.dispose` that releases the call's session with the
 * other side; left to the garbage collector, it lingers (Cloudflare, "Workers RPC — Lifecycle":
 * https://developers.cloudflare.com/workers/runtime-apis/rpc/lifecycle/ — "your code should dispose
 * stubs explicitly when it is done with them"). Seen here: under `wrangler dev`, a session object
 * that made a service-binding call and never released its answer left the WebSockets it then closed
 * half-closed until the browser gave up (two seconds in Chromium). Plain data stays readable after.
 */

/** Disposes `value` when the runtime made it disposable (an RPC answer); returns it unchanged. Never throws. */
export function releaseRpcResult<T>(value: T): T {
  // `Symbol.dispose` (explicit resource management) is in workerd but not in this project's TS lib.
  const dispose = (Symbol as { dispose?: symbol }).dispose;
  if (dispose && typeof value === "object" && value !== null) {
    const release = (value as Record<symbol, unknown>)[dispose];
    if (typeof release === "function") {
      try {
        release.call(value);
      } catch {
        // Already released, or not ours to release: nothing to do.
      }
    }
  }
  return value;
}
