/**
 * One isolate of the hot-key tests (issue 29): its own worker script, so its own isolate and its
 * own limiter state (coalescer, blocked-key memory, lease book), bound to the test worker's
 * rate-limiter namespace. Each `check` is one RPC, so a request of its own, as a client's would be;
 * the limiter is built per request, as apps do. `die()` drops the isolate's limiter state without
 * giving anything back, as an isolate evicted while it holds a lease would.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { StatefulObjectClient } from "../../../client-sdk/bindings/durable-object";
import { DORateLimiter } from "../../../client-sdk/rate-limit/durable-object";

interface Env {
  RATE_LIMITER: DurableObjectNamespace;
}

export interface IsolateCheck {
  key: string;
  limit: number;
  window: number;
  /** The injected clock of this check, ms. */
  now: number;
  prefix: string;
  leasing?: boolean;
}

export interface IsolateDecision {
  allowed: boolean;
  remaining: number;
  source: string;
}

/**
 * The namespace as this isolate's limiters see it. Limiters keep their isolate state per binding
 * object, so a new view is a fresh isolate's state; the old one, and what it held, is gone.
 */
let view: DurableObjectNamespace | undefined;

function namespaceView(ns: DurableObjectNamespace): DurableObjectNamespace {
  return { idFromName: (name: string) => ns.idFromName(name), get: (id: DurableObjectId) => ns.get(id) } as never;
}

export default class Isolate extends WorkerEntrypoint<Env> {
  async check(c: IsolateCheck): Promise<IsolateDecision> {
    view ??= namespaceView(this.env.RATE_LIMITER);
    const limiter = new DORateLimiter(new StatefulObjectClient(view), {
      limit: c.limit,
      window: c.window,
      clock: () => c.now,
      prefix: c.prefix,
      leasing: c.leasing ?? true,
      onStoreError: "deny",
      timeoutMs: 10_000,
    });
    const { allowed, remaining, source } = await limiter.check(c.key);
    return { allowed, remaining, source };
  }

  die(): void {
    view = undefined;
  }
}
