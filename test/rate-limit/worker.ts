/**
 * The worker under test: RateLimiterDO, one fixture object per failure
 * mode (counting, throwing, stalling), and an Application whose routes sit
 * behind both limiters, so tests reach them the way a client would.
 */

import { Application } from "gatehouse-workers";
import { KVStore, StatefulObjectClient } from "gatehouse-workers/bindings";
import { RateLimiterDO } from "gatehouse-workers/durable-objects";
import type {
  RateCheckBatchCall,
  RateCheckBatchResult,
  RateCheckCall,
  RateCheckResult,
  RateLeaseCall,
  RateLeaseResult,
  RateReleaseCall,
  RateReleaseResult,
} from "gatehouse-workers/rate-limit";
import { DORateLimiter, KVRateLimiter } from "gatehouse-workers/rate-limit";

export { RateLimiterDO };

/** Counts every call that reaches it, so tests can prove a round trip did not happen. */
export class CountingRateLimiterDO extends RateLimiterDO {
  /** Calls that reached the object (a batch is one, a lease one, a return one). */
  served = 0;
  /** Checks the check and batch calls asked for. */
  checks = 0;
  /** Lease calls, and return calls. */
  leases = 0;
  releases = 0;
  override lease(call: RateLeaseCall): RateLeaseResult {
    this.served++;
    this.leases++;
    return super.lease(call);
  }
  override release(call: RateReleaseCall): RateReleaseResult {
    this.served++;
    this.releases++;
    return super.release(call);
  }
  override check(call: RateCheckCall): RateCheckResult {
    this.served++;
    this.checks++;
    return super.check(call);
  }
  override checkBatch(call: RateCheckBatchCall): RateCheckBatchResult {
    this.served++;
    this.checks += call.count;
    return super.checkBatch(call);
  }
}

/** A store that fails every check, like an overloaded or broken object. */
export class BrokenRateLimiterDO extends RateLimiterDO {
  override check(_call: RateCheckCall): RateCheckResult {
    throw new Error("storage exploded at 10.0.0.7");
  }
  override checkBatch(_call: RateCheckBatchCall): RateCheckBatchResult {
    throw new Error("storage exploded at 10.0.0.7");
  }
}

/** A store that answers after a second, to trip the limiter's timeout. */
export class SlowRateLimiterDO extends RateLimiterDO {
  async slowCheck(call: RateCheckCall): Promise<RateCheckResult> {
    await scheduler.wait(1000);
    return super.check(call);
  }
  // @ts-expect-error: the RPC caller awaits either way; the base method is synchronous.
  override async check(call: RateCheckCall): Promise<RateCheckResult> {
    return this.slowCheck(call);
  }
  // @ts-expect-error: as above.
  override async checkBatch(call: RateCheckBatchCall): Promise<RateCheckBatchResult> {
    await scheduler.wait(1000);
    return super.checkBatch(call);
  }
}

/** Fixed test clock, far in the future so no real-time alarm fires during a test. */
export const CLOCK_BASE = Date.UTC(2100, 0, 1);

export default Application.handler<Cloudflare.Env>({
  setup(app) {
    const clock = () => CLOCK_BASE + 30_000;
    const keyExtractor = (request: Request) => request.headers.get("x-client") ?? "anonymous";
    const doLimiter = new DORateLimiter(new StatefulObjectClient(app.env.RATE_LIMITER), {
      limit: 2,
      window: 60,
      clock,
      keyExtractor,
      prefix: "app-do:",
    });
    const kvLimiter = new KVRateLimiter(new KVStore(app.env.RL_KV), {
      limit: 2,
      window: 60,
      clock,
      keyExtractor,
      prefix: "app-kv:",
    });
    // No clock: the objects' own clocks decide, as in production; separate prefix per test via header.
    const crowdOptions = (request: Request) => ({
      limit: 20,
      window: 3_600,
      prefix: `crowd-${request.headers.get("x-prefix")}:`,
      onStoreError: "deny" as const,
      timeoutMs: 5_000,
    });
    const crowd = (request: Request) =>
      new DORateLimiter(new StatefulObjectClient(app.env.RATE_LIMITER), crowdOptions(request));
    const crowdKV = (request: Request) => new KVRateLimiter(new KVStore(app.env.RL_KV), crowdOptions(request));
    const counted = (request: Request) =>
      new DORateLimiter(new StatefulObjectClient(app.env.COUNTING_LIMITER), crowdOptions(request));
    app.hono.get("/crowd/do", (c) => crowd(c.req.raw).handle(c.req.raw, async () => new Response("ok")));
    // After the limiter the handler does I/O of its own (KV, a Durable Object): a request whose check
    // was answered by another request's batch must still run in, and do I/O from, its own request.
    app.hono.get("/crowd/counted", (c) =>
      counted(c.req.raw).handle(c.req.raw, async () => {
        await app.env.RL_KV.get("crowd-io-probe");
        const ns = app.env.RATE_LIMITER;
        await ns.get(ns.idFromName(`io-probe-${crypto.randomUUID()}`)).check({ key: "k", limit: 5, window: 60 });
        return new Response("ok");
      }),
    );
    app.hono.get("/crowd/kv", (c) => crowdKV(c.req.raw).handle(c.req.raw, async () => new Response("ok")));
    app.hono.use("/do/*", doLimiter.hono());
    app.hono.use("/kv/*", kvLimiter.hono());
    app.hono.get("/do/hello", (c) => c.json({ hello: "do" }));
    app.hono.get("/kv/hello", (c) => c.json({ hello: "kv" }));
    app.hono.get("/free", (c) => c.text("no limiter here"));
  },
});
