declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    RATE_LIMITER: DurableObjectNamespace<import("./worker").RateLimiterDO>;
    COUNTING_LIMITER: DurableObjectNamespace<import("./worker").CountingRateLimiterDO>;
    PEER_LIMITER: DurableObjectNamespace<import("./worker").DurableObjectRateLimiter>;
    RL_KV: KVNamespace;
  }
}
