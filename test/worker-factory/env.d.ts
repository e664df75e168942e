declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    AUTH_KV: KVNamespace;
    PEOPLE: DurableObjectNamespace<import("../../durable-objects/user-sessions").UserSessions>;
    LIMITS: DurableObjectNamespace<import("../../durable-objects/rate-limiter").RateLimiterDO>;
    SESSION_SECRET: string;
    AUTH_REDIRECT_URL: string;
    AUTH_RETURN_ORIGINS: string;
    IDENTITY_API_KEY: string;
    IDENTITY_CLIENT_ID: string;
    IDENTITY_API_HOSTNAME: string;
    IDENTITY_API_PORT: string;
    IDENTITY_API_HTTPS: string;
  }
}
