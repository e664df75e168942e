declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    RATE_LIMITER: DurableObjectNamespace<import("./worker").RateLimiterDO>;
    COUNTING_LIMITER: DurableObjectNamespace<import("./worker").CountingRateLimiterDO>;
    BROKEN_LIMITER: DurableObjectNamespace<import("./worker").BrokenRateLimiterDO>;
    SLOW_LIMITER: DurableObjectNamespace<import("./worker").SlowRateLimiterDO>;
    RL_KV: KVNamespace;
    ISOLATE_A: Service<import("./isolate/worker").default>;
    ISOLATE_B: Service<import("./isolate/worker").default>;
    ISOLATE_C: Service<import("./isolate/worker").default>;
    ISOLATE_D: Service<import("./isolate/worker").default>;
  }
}
