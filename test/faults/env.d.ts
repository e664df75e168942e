declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    SESSIONS: KVNamespace;
    USER_SESSIONS: DurableObjectNamespace<import("../../durable-objects/user-sessions").UserSessions>;
    BROKEN_USER_SESSIONS: DurableObjectNamespace<import("./worker").BrokenUserSessions>;
    RATE_LIMITER: DurableObjectNamespace<import("gatehouse-workers/durable-objects").RateLimiterDO>;
    BROKEN_RATE_LIMITER: DurableObjectNamespace<import("./worker").BrokenRateLimiterDO>;
    SESSION_SECRET: string;
    AUTH_REDIRECT_URL: string;
    ADMIN_API_TOKEN: string;
    IDENTITY_API_KEY: string;
    IDENTITY_CLIENT_ID: string;
    KV_DOWN: Fetcher;
    OBJECTS_DOWN: Fetcher;
    LIMITER_DOWN: Fetcher;
    AUTH: Service<import("./worker").AuthService>;
    AUTH_KV_DOWN: Service<import("./worker").KvDownAuthService>;
    AUTH_OBJECTS_DOWN: Service<import("./worker").SessionObjectsDownAuthService>;
    AUTH_LIMITER_DOWN: Service<import("./worker").LimiterDownAuthService>;
    /** A closed loopback port (vitest.config.ts): an auth worker that cannot be reached. */
    AUTH_DOWN: Fetcher;
  }
}
