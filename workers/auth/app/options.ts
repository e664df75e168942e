/**
 * @module
 * `AuthWorkerOptions`: everything a team sets in `createAuthWorker(options)`,
 * each with a typed default. Secrets never go here: they stay in env
 * (`SESSION_SECRET`, `IDENTITY_API_KEY`, `IDENTITY_CLIENT_ID`,
 * `IDENTITY_WEBHOOK_SECRET`, `ADMIN_API_TOKEN`), checked at start.
 */

import type { SessionPolicy } from "../../../client-sdk/protocol/policy";
import { type AppConnection, type AppConnections, checkApps } from "../../../durable-objects/user-sessions";
import { redirectUrlProblem } from "../config/rules";
import { parseOrigins } from "../flow/return-to";
import type { IdentityClient } from "../identity/identity-client";
import { AUTH_RATE_LIMITS, type AuthRateLimits, type AuthRouteFamily } from "../limits";
import type { LocationSource } from "../location";
import type { AuthEnv } from "../provider";
import {
  checkBindingPolicies,
  type DeviceBindingSetting,
  deviceBindingSetting,
  type RevocationMode,
  resolveSessionConfig,
  type SessionHooks,
} from "../session/config";
import { bindingSite } from "../session/device-binding/scope";
import { deploymentPolicies } from "../session/policy";
import { type ResolvedTransmitter, resolveSsfTransmitters, type SsfReceiverOptions } from "../ssf/receiver";
import { checkSsfOptions, type ResolvedSsfTransmitterOptions, type SsfTransmitterOptions } from "../ssf/transmitter";

/**
 * Binding names in the worker's env. Defaults: `SESSIONS`, `USER_SESSIONS`, `RATE_LIMITER`,
 * `ORGANIZATIONS`, `SECURITY_EVENTS`, `SSF_STREAMS`.
 */
export interface AuthWorkerBindings {
  /** KV namespace of the session records. */
  sessions?: string;
  /** Durable Object namespace of `UserSessions` (revocation, live channel, strict mode). */
  userSessions?: string;
  /** Durable Object namespace of `RateLimiterDO` (route limits, `AuthService.checkRateLimit`). */
  rateLimiter?: string;
  /** Durable Object namespace of `OrganizationSessions` (kill switch, member index, operator-set policy). */
  organizations?: string;
  /** Queue the security events also go to, when it is bound. */
  securityEvents?: string;
  /** Durable Object namespace of `SsfStreams` (shared-signals streams; needed with `ssf.receivers`). */
  ssfStreams?: string;
}

/** Route groups, all on by default (`account`, `admin` and `webhooks` also need their bindings/secrets). */
export interface AuthWorkerRoutes {
  /** `/account/sessions`, `/account/activity` and their live script. */
  account?: boolean;
  /** `/admin/*` (needs `ADMIN_API_TOKEN`). */
  admin?: boolean;
  /** `POST /webhooks/identity` (needs `IDENTITY_WEBHOOK_SECRET`). */
  webhooks?: boolean;
  /** `/parties/user-sessions/<userId>`: the live channel of open tabs. */
  live?: boolean;
  /** `GET /api/me`. */
  api?: boolean;
  /** `GET /`: the signed-in home page. */
  home?: boolean;
}

export interface AuthWorkerOptions {
  bindings?: AuthWorkerBindings;
  cookie?: {
    /** Base name (default `gh_session`); the `__Host-`/`__Secure-` prefix is derived. */
    name?: string;
    /** Share the session with subdomains (e.g. `example.com`). Default: host-only. */
    domain?: string;
    /** Default "Lax". */
    sameSite?: "Lax" | "Strict";
  };
  /** Seconds a session may sit unused. Default 7 days. */
  idleTimeout?: number;
  /** Seconds a session lives however active. Default 30 days. */
  absoluteTimeout?: number;
  /** Default: env `GATEHOUSE_REVOCATION`, else "strict" with the session objects bound. */
  revocation?: RevocationMode;
  /** The registered callback URL. Default: env `AUTH_REDIRECT_URL`. */
  redirectUrl?: string;
  /** Origins `return_to` may name. Default: env `AUTH_RETURN_ORIGINS` (comma list), else none. */
  returnOrigins?: string[];
  /** Per route family `{ limit, window }` or `false`; default `AUTH_RATE_LIMITS`. */
  rateLimits?: AuthRateLimits;
  routes?: AuthWorkerRoutes;
  /**
   * Default: WorkOS (`DefaultIdentityClient`) from env `IDENTITY_API_KEY`/`IDENTITY_CLIENT_ID`; the
   * local provider (`npx gatehouse-workers dev-idp`) is WorkOS pointed at loopback by env
   * `IDENTITY_API_HOSTNAME`/`IDENTITY_API_PORT`/`IDENTITY_API_HTTPS`. Or any `IdentityClient`.
   */
  identityClient?: IdentityClient | ((env: AuthEnv) => IdentityClient);
  /** Observers of sign-in, sign-out and revocation (awaited; failures logged, never fatal). */
  hooks?: SessionHooks;
  /** The cap on each user's concurrent sessions (default none) and what a sign-in past it does. */
  sessionPolicy?: Partial<SessionPolicy>;
  /** Caps per organization id; one an operator sets through the admin API wins. */
  organizationPolicies?: Record<string, Partial<SessionPolicy>>;
  /** The security timeline: how long events, devices and receipts are kept (default 90 days), and whether sign-ins are recorded. */
  timeline?: { retentionDays?: number; recordSignIns?: boolean };
  /** Where a request comes from (default `request.cf`). */
  location?: LocationSource;
  /**
   * Seconds since the person last signed in within which the sensitive pages (an organization's
   * session policy and kill switch) are open; older: a forced re-authentication first. Default 300.
   */
  recentAuthMaxAge?: number;
  /** Seconds an operator's session as someone else (impersonation) lasts at most. Default 3600. */
  impersonationTimeout?: number;
  /**
   * Device Bound Session Credentials (DBSC): `"off"` (default) or `"opportunistic"`: a sign-in asks
   * the browser to bind a key (`POST /auth/dbsc/register`, `/auth/dbsc/refresh`), and a session whose
   * browser did is signed in only with its fresh bound cookie. Needs the `UserSessions` binding.
   */
  deviceBinding?: DeviceBindingSetting;
  /**
   * With `deviceBinding` on and `cookie.domain` set, the site a bound session covers: a bare https
   * origin whose host is the registrable domain. Default `https://<cookie.domain>`; set it only when
   * the cookie's domain lies below the site. The site must serve `/.well-known/device-bound-sessions`
   * naming this worker (route it here, or `deviceBoundSessionsWellKnown` from `gatehouse-workers/auth`).
   */
  deviceBindingSite?: string;
  /**
   * Apps told when sessions end, so they close their own live connections (ARCHITECTURE.md "App
   * connections"): by name (`/^[a-z][a-z0-9-]{0,31}$/`), the service binding to the app's
   * `GatehouseRevocations` entrypoint (`[[services]] binding = "APP_CHAT", service = "chat",
   * entrypoint = "GatehouseRevocations"`). Each binding must be bound, and `UserSessions` too
   * (the notices leave the user's session object). Default none.
   */
  apps?: Record<string, AppConnection>;
  /**
   * OpenID Shared Signals (issue 32), both directions, each on its own:
   * - as a transmitter: publishes `/.well-known/ssf-configuration` and `/ssf/jwks.json` and signs
   *   Security Event Tokens with the keys in the secret `signingKeys` names (default
   *   `SSF_SIGNING_KEYS`: a JSON array of private EC P-256 JWKs, the first signs, all are published).
   *   With `receivers`, each named receiver manages its streams through the SSF management API
   *   (`/ssf/stream`, `/ssf/status`, `/ssf/subjects:add|remove`, `/ssf/verify`) with its own bearer
   *   token, and our session revocations, role changes and account deletions are pushed to them
   *   (RFC 8935) from the `SsfStreams` object. On when `ssf` is given without `transmitters`, or
   *   with `issuer`, `signingKeys` or `receivers`.
   * - as a receiver: `transmitters` are upstream transmitters (an identity provider) whose pushed SETs
   *   `POST /ssf/events` accepts: `{ issuer, jwksUri | jwks, audience, issSubIssuer? }` each.
   * Default: off.
   */
  ssf?: SsfTransmitterOptions & SsfReceiverOptions;
}

export interface ResolvedAuthWorkerOptions extends Omit<AuthWorkerOptions, "ssf"> {
  bindings: Required<AuthWorkerBindings>;
  /** The binding names the options named themselves: these must be bound (a default one may be absent). */
  namedBindings: (keyof AuthWorkerBindings)[];
  routes: Required<AuthWorkerRoutes>;
  /** The apps, checked (none: empty). */
  apps: AppConnections;
  /** The transmitter's options, checked (absent: off). */
  ssf?: ResolvedSsfTransmitterOptions;
  /** `ssf.transmitters`, checked (none: empty, the receiver is off). */
  ssfTransmitters: ResolvedTransmitter[];
}

export const DEFAULT_BINDINGS: Required<AuthWorkerBindings> = {
  sessions: "SESSIONS",
  userSessions: "USER_SESSIONS",
  rateLimiter: "RATE_LIMITER",
  organizations: "ORGANIZATIONS",
  securityEvents: "SECURITY_EVENTS",
  ssfStreams: "SSF_STREAMS",
};

const ALL_ROUTES: Required<AuthWorkerRoutes> = {
  account: true,
  admin: true,
  webhooks: true,
  live: true,
  api: true,
  home: true,
};

/** Checks the options once, when `createAuthWorker` runs: a mistake fails the deploy, not a request. */
export function resolveAuthWorkerOptions(options: AuthWorkerOptions = {}): ResolvedAuthWorkerOptions {
  const bindings = { ...DEFAULT_BINDINGS, ...options.bindings };
  for (const [key, name] of Object.entries(bindings)) {
    if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new TypeError(`createAuthWorker: bindings.${key} must be a binding name, got ${JSON.stringify(name)}`);
    }
  }
  // One binding per role: two roles under one name would hand the KV namespace to the session objects' code, or back.
  const names = Object.values(bindings);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new TypeError(`createAuthWorker: bindings name ${twice} for two roles; each needs its own binding`);
  const apps = options.apps === undefined ? {} : checkApps(options.apps, "createAuthWorker: apps", names);
  // The transmitter is on with `ssf` alone, or named (`issuer`, `signingKeys`); `transmitters` alone is the receiver only.
  const given = options.ssf;
  const transmitting =
    given !== undefined &&
    (given === null ||
      typeof given !== "object" ||
      given.transmitters === undefined ||
      given.issuer !== undefined ||
      given.receivers !== undefined ||
      given.signingKeys !== undefined);
  const ssf = transmitting ? checkSsfOptions(given as SsfTransmitterOptions) : undefined;
  const namedBindings = (Object.keys(options.bindings ?? {}) as (keyof AuthWorkerBindings)[]).filter(
    (key) => options.bindings?.[key] !== undefined,
  );
  let ssfTransmitters: ResolvedTransmitter[];
  try {
    ssfTransmitters = resolveSsfTransmitters(options.ssf?.transmitters);
  } catch (err) {
    throw new TypeError(`createAuthWorker: ${(err as Error).message}`);
  }
  if (options.redirectUrl !== undefined) {
    const problem = redirectUrlProblem(options.redirectUrl);
    if (problem === "not_a_url") throw new TypeError(`createAuthWorker: redirectUrl is not a URL`);
    if (problem) {
      throw new TypeError(
        "createAuthWorker: redirectUrl is http: on a host that is not loopback; use https (cookies would lose Secure and the __Host- prefix)",
      );
    }
  }
  let returnOrigins: string[] | undefined;
  if (options.returnOrigins !== undefined) {
    try {
      returnOrigins = parseOrigins(options.returnOrigins.join(","));
    } catch (err) {
      throw new TypeError(
        `createAuthWorker: returnOrigins: ${(err as Error).message.replace(/^AUTH_RETURN_ORIGINS: /, "")}`,
      );
    }
  }
  for (const [family, limit] of Object.entries(options.rateLimits ?? {})) {
    if (!(family in AUTH_RATE_LIMITS)) {
      throw new TypeError(`createAuthWorker: rateLimits.${family} is not a route family (${familyList()})`);
    }
    if (limit === false) continue;
    if (!limit || !isPositiveInteger(limit.limit) || !isPositiveInteger(limit.window)) {
      throw new TypeError(
        `createAuthWorker: rateLimits.${family} must be false or { limit, window } in whole positive numbers`,
      );
    }
  }
  const sameSite = options.cookie?.sameSite;
  if (sameSite !== undefined && sameSite !== "Lax" && sameSite !== "Strict") {
    throw new TypeError('createAuthWorker: cookie.sameSite must be "Lax" or "Strict"');
  }
  if (options.revocation !== undefined && options.revocation !== "strict" && options.revocation !== "eventual") {
    throw new TypeError('createAuthWorker: revocation must be "strict" or "eventual"');
  }
  // The session settings as SessionManager will read them: timeouts, cookie name and domain.
  try {
    const { idleTimeout, absoluteTimeout, cookie, sessionPolicy, organizationPolicies, impersonationTimeout } = options;
    resolveSessionConfig({
      ...(impersonationTimeout !== undefined ? { impersonationTimeout } : {}),
      ...(idleTimeout !== undefined ? { idleTimeout } : {}),
      ...(absoluteTimeout !== undefined ? { absoluteTimeout } : {}),
      ...(cookie ? { cookie: { ...cookie } } : {}),
      revocation: "eventual",
    });
    // The policies are checked here with the deployment's binding mode (which needs the objects there).
    checkBindingPolicies(
      deploymentPolicies({
        ...(sessionPolicy ? { sessionPolicy } : {}),
        ...(organizationPolicies ? { organizationPolicies } : {}),
      }),
      deviceBindingSetting(options.deviceBinding),
    );
    const maxAge = options.recentAuthMaxAge;
    if (maxAge !== undefined && (!Number.isInteger(maxAge) || maxAge < 0 || maxAge > 86_400)) {
      throw new RangeError("recentAuthMaxAge must be a whole number of seconds from 0 to 86400");
    }
    const binding = deviceBindingSetting(options.deviceBinding);
    if (binding !== "off" || options.deviceBindingSite !== undefined) {
      // https unless the redirect URL says plain-HTTP local development (checked again with env's at start).
      bindingSite(options.cookie?.domain, options.deviceBindingSite, !options.redirectUrl?.startsWith("http:"));
    }
    const days = options.timeline?.retentionDays;
    if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 3650)) {
      throw new RangeError("timeline.retentionDays must be a whole number of days from 1 to 3650");
    }
  } catch (err) {
    throw new TypeError(`createAuthWorker: ${(err as Error).message}`);
  }
  const { ssf: _given, ...rest } = options;
  return {
    ...rest,
    ...(returnOrigins ? { returnOrigins } : {}),
    bindings,
    namedBindings,
    routes: { ...ALL_ROUTES, ...options.routes },
    apps,
    ...(ssf ? { ssf } : {}),
    ssfTransmitters,
  };
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value > 0;
}

function familyList(): string {
  return (Object.keys(AUTH_RATE_LIMITS) as AuthRouteFamily[]).join(", ");
}
