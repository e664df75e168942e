declare namespace Cloudflare {
  interface Env {
    DB: D1Database;
    ANALYTICS: D1Database;
    KV: KVNamespace;
    CACHE: KVNamespace;
    FILES: R2Bucket;
    JOBS: Queue;
    COUNTERS: DurableObjectNamespace<import("./worker").Counter>;
    CONTAINERS: DurableObjectNamespace<import("./worker").ContainerStandIn>;
    AUX: Fetcher;
    AUX_RPC: Fetcher;
    CUSTOMER_ALPHA: Fetcher;
    CUSTOMER_BETA: Fetcher;
    PG: Hyperdrive;
    PG_DOWN: Hyperdrive;
    SQLITE_READER_URL: string;
    APP_NAME: string;
    FEATURE_FLAGS: { beta: boolean; limits: number[] };
  }
}
