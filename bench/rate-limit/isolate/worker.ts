/**
 * One isolate of the hot-key bench (issue 29): its own worker script, so its own limiter state,
 * bound to the bench worker's CountingRateLimiterDO and the peer's counting object. Each call is
 * one RPC, so a request of its own; the limiter (or the peer's store) is built per request.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { type DurableObjectRateLimiter, DurableObjectStore } from "@hono-rate-limiter/cloudflare";
import { StatefulObjectClient } from "../../../client-sdk/bindings/durable-object";
import { DORateLimiter } from "../../../client-sdk/rate-limit/durable-object";

interface Env {
  RATE_LIMITER: DurableObjectNamespace;
  PEER_LIMITER: DurableObjectNamespace<DurableObjectRateLimiter>;
}

export interface HotCheck {
  key: string;
  limit: number;
  window: number;
  /** The injected clock of this check, ms. */
  now: number;
  prefix: string;
  leasing: boolean;
}

export default class BenchIsolate extends WorkerEntrypoint<Env> {
  /** Ours: admitted or not (a store failure counts as a failure of the run, not an admission). */
  async check(c: HotCheck): Promise<{ allowed: boolean; source: string }> {
    const limiter = new DORateLimiter(new StatefulObjectClient(this.env.RATE_LIMITER), {
      limit: c.limit,
      window: c.window,
      clock: () => c.now,
      prefix: c.prefix,
      leasing: c.leasing,
      onStoreError: "deny",
      timeoutMs: 30_000,
    });
    const { allowed, source } = await limiter.check(c.key);
    return { allowed, source };
  }

  /** The peer, as hono-rate-limiter uses its store: increment, then admitted while totalHits <= limit. */
  async peer(c: { key: string; limit: number; window: number; prefix: string }): Promise<{ allowed: boolean }> {
    const store = new DurableObjectStore({ namespace: this.env.PEER_LIMITER, prefix: c.prefix });
    store.init({ windowMs: c.window * 1000 } as Parameters<typeof store.init>[0]);
    const { totalHits } = await store.increment(c.key);
    return { allowed: totalHits <= c.limit };
  }
}
