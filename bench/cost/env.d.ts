declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    SESSIONS: KVNamespace;
    USER_SESSIONS: DurableObjectNamespace<import("../../durable-objects/user-sessions").UserSessions>;
    ORGANIZATIONS: DurableObjectNamespace<import("../../durable-objects/organization-sessions").OrganizationSessions>;
    RATE_LIMITER: DurableObjectNamespace<import("../../durable-objects/rate-limiter").RateLimiterDO>;
    SSF_STREAMS: DurableObjectNamespace<import("../../durable-objects/ssf-streams").SsfStreams>;
    SESSION_SECRET: string;
    AUTH_REDIRECT_URL: string;
    ADMIN_API_TOKEN: string;
    IDENTITY_WEBHOOK_SECRET: string;
    SSF_SIGNING_KEYS: string;
    IDENTITY_API_HOSTNAME: string;
    IDENTITY_API_PORT: string;
  }
}
