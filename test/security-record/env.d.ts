declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    ORGANIZATIONS: DurableObjectNamespace<import("../../durable-objects/organization-sessions").OrganizationSessions>;
    SESSIONS: KVNamespace;
    USER_SESSIONS: DurableObjectNamespace<import("../../durable-objects/user-sessions").UserSessions>;
    RATE_LIMITER: DurableObjectNamespace<import("../../durable-objects/rate-limiter").RateLimiterDO>;
    SECURITY_EVENTS: Queue<import("../../client-sdk/protocol/security-record").SecurityEvent>;
    RECEIVED: KVNamespace;
    SESSION_SECRET: string;
    AUTH_REDIRECT_URL: string;
    ADMIN_API_TOKEN: string;
    ADMIN_API_TOKENS: string;
    ADMIN_CONSOLE_ORGANIZATIONS: string;
    SECURITY_EVENTS_WEBHOOK_URL: string;
    SECURITY_EVENTS_WEBHOOK_SECRET: string;
  }
}
