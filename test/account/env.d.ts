declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    SESSIONS: KVNamespace;
    USER_SESSIONS: DurableObjectNamespace<import("../../durable-objects/user-sessions").UserSessions>;
    SESSION_SECRET: string;
    AUTH_REDIRECT_URL: string;
    /** Built Node-side by test/node/account-setup.ts with scripts/build-client.mjs. */
    ACCOUNT_BUNDLE: {
      /** Output files, relative to the output directory ("account/live.js"). */
      files: string[];
      /** The bundled live script. */
      code: string;
      /** The generated `_headers` file. */
      headers: string;
      /** Names of secret values (canaries and .dev.vars) found in the output: must be empty. */
      leaks: string[];
      /** `node --check` accepted the bundle as an ES module. */
      syntaxOk: boolean;
    };
  }
}
