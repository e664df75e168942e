declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    SESSIONS: KVNamespace;
    SESSION_SECRET: string;
    USER_SESSIONS: DurableObjectNamespace<import("../../durable-objects/user-sessions").UserSessions>;
    BETTER_AUTH_DB: D1Database;
    BETTER_AUTH_SECRET: string;
  }
}
