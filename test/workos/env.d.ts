declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    ORGANIZATIONS: DurableObjectNamespace<import("../../durable-objects/organization-sessions").OrganizationSessions>;
    SESSIONS: KVNamespace;
    USER_SESSIONS: DurableObjectNamespace<import("../../durable-objects/user-sessions").UserSessions>;
    RATE_LIMITER: DurableObjectNamespace<import("../../durable-objects/rate-limiter").RateLimiterDO>;
    SESSION_SECRET: string;
    AUTH_REDIRECT_URL: string;
    ADMIN_API_TOKEN: string;
    IDENTITY_WEBHOOK_SECRET: string;
    ADMIN_CONSOLE_ORGANIZATIONS: string;
  }
}
