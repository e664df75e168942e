/**
 * @module
 * The middleware interface of the spec: fetch-native `handle(request, next)`,
 * usable without Hono, plus `compose` to chain several and `toHono` to mount
 * one in a Hono app. A middleware either answers (short-circuit) or calls
 * `next`, optionally with a replacement request; it must never call `next` twice.
 */
import type { MiddlewareHandler } from "hono";

/** Calls the rest of the chain. Pass a request to replace the one downstream sees. */
export type Next = (request?: Request) => Promise<Response>;

/** The middleware interface every Gatehouse guard and limiter implements. */
export interface Middleware {
  handle(request: Request, next: Next): Promise<Response>;
}

/** A terminal handler: what runs after the last middleware. */
export type Handler = (request: Request) => Response | Promise<Response>;

/**
 * Runs `middlewares` in order around `handler`.
 *
 * @example
 * ```ts
 * const run = compose([new AuthMiddleware(sessions)], (req) => new Response("ok"));
 * await run(request);
 * ```
 */
export function compose(middlewares: readonly Middleware[], handler: Handler): Handler {
  return (request) => dispatch(0, request);

  async function dispatch(index: number, request: Request): Promise<Response> {
    const middleware = middlewares[index];
    if (!middleware) return handler(request);
    let called = false;
    return middleware.handle(request, (next = request) => {
      if (called) throw new Error("next() called more than once by a middleware");
      called = true;
      if (next !== request) inheritRequestValues(request, next);
      return dispatch(index + 1, next);
    });
  }
}

/**
 * Mounts a fetch-native middleware in Hono. Short-circuit answers are
 * returned as-is; when the middleware calls `next`, Hono's downstream chain
 * runs and the middleware's final answer replaces `c.res` wholesale.
 *
 * @example
 * ```ts
 * app.use("/admin/*", toHono(new RoleMiddleware(sessions, resolver, "admin")));
 * ```
 */
export function toHono(middleware: Middleware): MiddlewareHandler {
  return async (c, next) => {
    let downstream: Response | undefined;
    const res = await middleware.handle(c.req.raw, async (request) => {
      if (request && request !== c.req.raw) {
        inheritRequestValues(c.req.raw, request);
        c.req.raw = request;
      }
      await next();
      downstream = c.res;
      return c.res;
    });
    if (downstream === undefined) return res;
    if (res !== downstream) {
      // Clear first so Hono does not merge the old response's headers into ours.
      c.res = undefined;
      c.res = res;
    }
  };
}

/**
 * Per-request values shared between middleware and handlers without Hono.
 * Keyed by the Request object, so it lives exactly as long as the request.
 */
const states = new WeakMap<Request, Map<RequestKey<unknown>, unknown>>();

/** A typed key for `setRequestValue` / `getRequestValue`. */
export class RequestKey<T> {
  declare readonly __type?: T;
  constructor(readonly description: string) {}
}

export function setRequestValue<T>(request: Request, key: RequestKey<T>, value: T): void {
  let map = states.get(request);
  if (!map) {
    map = new Map();
    states.set(request, map);
  }
  map.set(key, value);
}

export function getRequestValue<T>(request: Request, key: RequestKey<T>): T | undefined {
  return states.get(request)?.get(key) as T | undefined;
}

/** Makes the values set on `from` visible on `to` (a replacement request). */
export function inheritRequestValues(from: Request, to: Request): void {
  const map = states.get(from);
  if (map && !states.has(to)) states.set(to, map);
}
