/**
 * @module
 * The example consumer's environment: the service binding to the auth
 * worker's `AuthService` entrypoint, the auth worker's login URL, and the two
 * Durable Objects of its live counter (the counter and the app-connections
 * registry). No session secret and no session store: those stay in the auth worker.
 */
import type { AuthServiceBinding } from "gatehouse-workers/client";

export interface ConsumerEnv {
  /** `[[services]] binding = "AUTH", service = "gatehouse-auth", entrypoint = "AuthService"`. */
  AUTH: AuthServiceBinding;
  /** Absolute URL of the auth worker's login route, e.g. `https://auth.example.com/auth/login`. */
  AUTH_LOGIN_URL: string;
  /**
   * `LiveCounter` (live-counter.ts): the shared counter's hibernating WebSockets, one object
   * "global". Unbound (the test configurations), `/live/socket` answers 503.
   */
  LIVE_COUNTER?: DurableObjectNamespace;
  /** `SessionConnections` of `gatehouse-workers/connections`: which objects hold which session's sockets. */
  GATEHOUSE_CONNECTIONS?: DurableObjectNamespace;
}
