/**
 * @module
 * The example consumer's environment: the service binding to the auth
 * worker's `AuthService` entrypoint and the auth worker's login URL.
 * No session secret and no session store: those stay in the auth worker.
 */
import type { AuthServiceBinding } from "gatehouse-workers/client";

export interface ConsumerEnv {
  /** `[[services]] binding = "AUTH", service = "gatehouse-auth", entrypoint = "AuthService"`. */
  AUTH: AuthServiceBinding;
  /** Absolute URL of the auth worker's login route, e.g. `https://auth.example.com/auth/login`. */
  AUTH_LOGIN_URL: string;
}
