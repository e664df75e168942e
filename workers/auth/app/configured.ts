/**
 * @module
 * The options of this script's auth worker. `createAuthWorker(options)` records
 * them when the host module's top level runs, before any request: the fetch
 * handler, the `AuthService` entrypoint and the `UserSessions` objects of the
 * same script read them from here, so a team re-exports our classes as they
 * are. One auth worker per script; the last `createAuthWorker` call wins.
 */
import { UserSessions } from "../../../durable-objects/user-sessions";
import {
  type AuthWorkerOptions,
  DEFAULT_BINDINGS,
  type ResolvedAuthWorkerOptions,
  resolveAuthWorkerOptions,
} from "../factory/options";

let current: ResolvedAuthWorkerOptions | undefined;

/** Records the worker's options (see module doc); returns them resolved. */
export function configureAuthWorker(options: AuthWorkerOptions = {}): ResolvedAuthWorkerOptions {
  current = resolveAuthWorkerOptions(options);
  UserSessions.sessionsBinding = current.bindings.sessions;
  return current;
}

export function authWorkerOptions(): ResolvedAuthWorkerOptions {
  current ??= resolveAuthWorkerOptions();
  return current;
}

const views = new WeakMap<object, object>();

/**
 * The env as the auth module reads it: the configured binding names under the default
 * names (`SESSIONS`, `USER_SESSIONS`, `RATE_LIMITER`). The same object for the same env.
 */
export function authEnvOf<E extends object>(env: E): E {
  const { bindings } = authWorkerOptions();
  const renamed = (Object.keys(DEFAULT_BINDINGS) as (keyof typeof DEFAULT_BINDINGS)[]).filter(
    (key) => bindings[key] !== DEFAULT_BINDINGS[key],
  );
  if (renamed.length === 0) return env;
  let view = views.get(env);
  if (!view) {
    const source = env as Record<string, unknown>;
    const mapped: Record<string, unknown> = { ...source };
    for (const key of renamed) mapped[DEFAULT_BINDINGS[key]] = source[bindings[key]];
    view = mapped;
    views.set(env, view);
  }
  return view as E;
}
