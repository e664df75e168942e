declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    SESSIONS: KVNamespace;
    SESSION_SECRET: string;
    AUTH_REDIRECT_URL: string;
  }
}
