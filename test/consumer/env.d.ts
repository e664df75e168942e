declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./worker");
  }
  interface Env {
    AUTH: Service<import("../../workers/auth/rpc/auth-service").AuthService>;
    AUTH_TEST: Service<import("./auth-fixture/worker").TestSessions>;
    AUTH_STORE_DOWN: Service<import("./auth-fixture/worker").StoreDownAuthService>;
    AUTH_BROKEN: Service<import("./auth-fixture/worker").BrokenAuthService>;
    AUTH_SLOW: Service<import("./auth-fixture/worker").SlowAuthService>;
    AUTH_OTHER_SHAPE: Service<import("./auth-fixture/worker").OtherShapeService>;
    AUTH_MISCONFIGURED: Service<import("../../workers/auth/rpc/auth-service").AuthService>;
    /** A binding to a closed port: every call fails in transit. */
    AUTH_DOWN: Service<import("../../workers/auth/rpc/auth-service").AuthService>;
    AUTH_LOGIN_URL: string;
  }
}
