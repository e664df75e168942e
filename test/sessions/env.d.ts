declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    ORGANIZATIONS: DurableObjectNamespace<import("../../durable-objects/organization-sessions").OrganizationSessions>;
    SESSIONS: KVNamespace;
    USER_SESSIONS: DurableObjectNamespace<import("../../durable-objects/user-sessions").UserSessions>;
    SESSION_SECRET: string;
    AUTH_REDIRECT_URL: string;
    ADMIN_API_TOKEN: string;
    GATEHOUSE_REVOCATION_BATCH: string;
  }
}
