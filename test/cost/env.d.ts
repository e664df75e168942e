declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    KV: KVNamespace;
    JOBS: Queue;
    PROBE: DurableObjectNamespace<import("./worker").Probe>;
  }
}
