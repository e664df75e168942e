/**
 * @module
 * The options of this script's auth worker. `createAuthWorker(options)` records
 * them when the host module's top level runs, before any request: the fetch
 * handler, the `AuthService` entrypoint and the `UserSessions` objects of the
 * same script read them from here, so a team re-exports our classes as they
 * are. One auth worker per script: a second call with other options throws.
 * It must run at module top level (a Durable Object isolate runs the module too).
 */
import { OrganizationSessions } from "../../../durable-objects/organization-sessions";
import { SsfStreams } from "../../../durable-objects/ssf-streams";
import { UserSessions } from "../../../durable-objects/user-sessions";
import { assertConfigured, type ConfigCheck, configVerdict } from "../config";
import { receiverTokenProblems, signingKeysProblems } from "../ssf/transmitter";
import {
  type AuthWorkerOptions,
  DEFAULT_BINDINGS,
  type ResolvedAuthWorkerOptions,
  resolveAuthWorkerOptions,
} from "./options";

let current: ResolvedAuthWorkerOptions | undefined;
let given: AuthWorkerOptions | undefined;

/** Records the worker's options (see module doc); returns them resolved. */
export function configureAuthWorker(options: AuthWorkerOptions = {}): ResolvedAuthWorkerOptions {
  const resolved = resolveAuthWorkerOptions(options);
  if (given !== undefined && given !== options) {
    throw new TypeError(
      "createAuthWorker: called twice in one script; one auth worker per script (the Durable Objects and the AuthService entrypoint share its options)",
    );
  }
  given = options;
  current = resolved;
  // The objects of this script read their settings from their classes (they are built by the runtime).
  const retentionMs = (resolved.timeline?.retentionDays ?? 90) * 24 * 3600 * 1000;
  UserSessions.sessionsBinding = resolved.bindings.sessions;
  UserSessions.securityEventsQueue = resolved.bindings.securityEvents;
  UserSessions.retentionMs = retentionMs;
  UserSessions.apps = resolved.apps;
  // Streams exist only with receivers to manage them: then the users' objects hand their events over.
  const streams = (resolved.ssf?.receivers.length ?? 0) > 0;
  UserSessions.ssfStreamsBinding = streams ? resolved.bindings.ssfStreams : null;
  SsfStreams.signingKeys = resolved.ssf?.signingKeys ?? SsfStreams.signingKeys;
  SsfStreams.endpoints = Object.fromEntries(resolved.ssf?.receivers.map((r) => [r.name, r.endpoints]) ?? []);
  OrganizationSessions.sessionsBinding = resolved.bindings.sessions;
  OrganizationSessions.userSessionsBinding = resolved.bindings.userSessions;
  OrganizationSessions.retentionMs = retentionMs;
  return resolved;
}

export function authWorkerOptions(): ResolvedAuthWorkerOptions {
  current ??= resolveAuthWorkerOptions();
  return current;
}

/** The start-up check of this env with the options' own values (binding names, redirect URL, revocation). */
export function authConfigVerdict(env: object): ConfigCheck {
  return configVerdict(env, checkedOptions());
}

/** `authConfigVerdict` for the RPC entrypoint: throws the 503 refusal. */
export function assertAuthConfigured(env: object): void {
  assertConfigured(env, checkedOptions());
}

function checkedOptions() {
  const { bindings, namedBindings, redirectUrl, revocation, apps, ssf } = authWorkerOptions();
  return {
    sessionsBinding: bindings.sessions,
    // The Queue is checked by its own shape (a missing one only means no queue delivery).
    requiredBindings: [
      ...namedBindings.filter((key) => key !== "sessions" && key !== "securityEvents").map((key) => bindings[key]),
      // Stream management keeps its streams in the SsfStreams object: without it nothing could be sent.
      ...(ssf && ssf.receivers.length > 0 && !namedBindings.includes("ssfStreams") ? [bindings.ssfStreams] : []),
    ],
    ...(redirectUrl ? { redirectUrl } : {}),
    ...(revocation ? { revocation } : {}),
    userSessionsBinding: bindings.userSessions,
    serviceBindings: Object.values(apps).map((app) => app.binding),
    // With ssf configured, its signing keys are part of the start-up check: a bad key fails closed.
    // and so does each stream receiver's bearer token (required, and a real secret).
    ...(ssf
      ? {
          problems: (env: object) => [
            ...signingKeysProblems(env, ssf.signingKeys),
            ...receiverTokenProblems(
              env,
              ssf.receivers.map((r) => r.tokenVariable),
            ),
          ],
        }
      : {}),
  };
}

/** Env views made here, so a view given back is returned as it is. */
const viewOf = new WeakMap<object, object>();
const views = new WeakSet<object>();

/**
 * The env as the auth module reads it: the configured binding names under the default
 * names (`SESSIONS`, `USER_SESSIONS`, `RATE_LIMITER`). The same object for the same env, and
 * a view is its own view (so a caller that maps twice gets what it got the first time).
 */
export function authEnvOf<E extends object>(env: E): E {
  if (views.has(env)) return env;
  const { bindings } = authWorkerOptions();
  const renamed = (Object.keys(DEFAULT_BINDINGS) as (keyof typeof DEFAULT_BINDINGS)[]).filter(
    (key) => bindings[key] !== DEFAULT_BINDINGS[key],
  );
  if (renamed.length === 0) return env;
  let view = viewOf.get(env);
  if (!view) {
    const source = env as Record<string, unknown>;
    const mapped: Record<string, unknown> = { ...source };
    // The default names mean only what the options say: a binding that happens to carry a default
    // name but plays no role here is not picked up under it.
    for (const key of renamed) mapped[DEFAULT_BINDINGS[key]] = source[bindings[key]];
    view = mapped;
    viewOf.set(env, view);
    views.add(view);
  }
  return view as E;
}
