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
    /** Made Node-side by test/node/account-setup.ts with scripts/build-live-script.mjs. */
    ACCOUNT_BUNDLE: {
      /** The checked-in live script (what the worker serves). */
      code: string;
      /** It equals a fresh build. */
      fresh: boolean;
      /** Names of secret values (canaries and .dev.vars) found in it or in the fresh build: must be empty. */
      leaks: string[];
      /** `node --check` accepted the bundle as an ES module. */
      syntaxOk: boolean;
    };
  }
}
