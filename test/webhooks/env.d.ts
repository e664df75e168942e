declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    SESSIONS: KVNamespace;
    USER_SESSIONS: DurableObjectNamespace<import("../../durable-objects/user-sessions").UserSessions>;
    ORGANIZATIONS: DurableObjectNamespace<import("../../durable-objects/organization-sessions").OrganizationSessions>;
    SESSION_SECRET: string;
    AUTH_REDIRECT_URL: string;
    IDENTITY_WEBHOOK_SECRET: string;
    IDENTITY_API_KEY: string;
    IDENTITY_CLIENT_ID: string;
    IDENTITY_API_HOSTNAME: string;
    IDENTITY_API_PORT: string;
    IDENTITY_API_HTTPS: string;
    GATEHOUSE_REVOCATION_BATCH: string;
    GATEHOUSE_REWRITE_BATCH: string;
    /** The local identity provider started by test/node/webhooks-setup.ts, and its webhook receiver. */
    WEBHOOK_IDP: { url: string; receiverUrl: string };
  }
}
