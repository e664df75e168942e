declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    RATE_LIMITER: DurableObjectNamespace<import("./worker").RateLimiterDO>;
    COUNTING_LIMITER: DurableObjectNamespace<import("./worker").CountingRateLimiterDO>;
    PEER_LIMITER: DurableObjectNamespace<import("./worker").DurableObjectRateLimiter>;
    PEER_COUNTING: DurableObjectNamespace<import("./worker").CountingPeerRateLimiter>;
    RL_KV: KVNamespace;
    HOT_1: Service<import("./isolate/worker").default>;
    HOT_2: Service<import("./isolate/worker").default>;
    HOT_3: Service<import("./isolate/worker").default>;
    HOT_4: Service<import("./isolate/worker").default>;
    HOT_5: Service<import("./isolate/worker").default>;
    HOT_6: Service<import("./isolate/worker").default>;
    HOT_7: Service<import("./isolate/worker").default>;
    HOT_8: Service<import("./isolate/worker").default>;
  }
}
