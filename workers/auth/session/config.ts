/**
 * @module
 * Session settings and their defaults, in one place so ARCHITECTURE.md and
 * the code cannot drift. Every duration is in seconds. Session policies are
 * taken whole and checked by `policy.ts`; nothing here names a policy field.
 */
import { KV_MIN_TTL_SECONDS } from "../../../client-sdk/bindings/kv";
import type { DeviceBindingMode } from "../../../client-sdk/protocol/device-binding";
import type { SessionPolicy } from "../../../client-sdk/protocol/policy";
import type { OrganizationSessions } from "../../../durable-objects/organization-sessions";
import type { UserSessions } from "../../../durable-objects/user-sessions";
import type { RandomSource } from "../crypto";
import { edgeLocation, type LocationSource } from "../location";
import { bindingSite } from "./device-binding/scope";
import { type DeploymentPolicies, deploymentPolicies } from "./policy";

/**
 * How revocation reaches other locations:
 * - "strict": `resolveUser` also asks the user's session object (one extra Durable
 *   Object round trip per request); a revoked session is refused everywhere at once.
 * - "eventual": KV only; other locations may accept a revoked session for up to ~60 s.
 */
export type RevocationMode = "strict" | "eventual";

/**
 * The device-binding modes a deployment chooses: off, or opportunistic (every browser that can bind
 * does). "Required" is per role, in a session policy (`deviceBindingRoles`), and needs it on.
 */
export type DeviceBindingSetting = Exclude<DeviceBindingMode, "required">;
const DEVICE_BINDING_SETTINGS: readonly DeviceBindingSetting[] = ["off", "opportunistic"];

/** Checks the `deviceBinding` option (default `"off"`); anything else throws a TypeError naming it. */
export function deviceBindingSetting(value: unknown): DeviceBindingSetting {
  if (value === undefined) return "off";
  if (!(DEVICE_BINDING_SETTINGS as readonly unknown[]).includes(value)) {
    throw new TypeError(`deviceBinding must be "off" or "opportunistic", got ${JSON.stringify(value)}`);
  }
  return value as DeviceBindingSetting;
}

export interface SessionCookieConfig {
  /**
   * Base name; the prefix is derived: `__Host-` by default, `__Secure-` when
   * `domain` is set, none when `secure` is false (plain-HTTP local development).
   */
  name?: string;
  /** Share the session across subdomains (e.g. `example.com` for `<org>.example.com`). */
  domain?: string;
  /** Default true. Set false only for plain-HTTP local development. */
  secure?: boolean;
  /**
   * Default "Lax": the cookie rides top-level navigations from other sites (links into your app,
   * the identity provider's redirect back). "Strict" also drops it on those, so the first page
   * after a sign-in redirect chain started elsewhere looks signed out until the next navigation.
   */
  sameSite?: "Lax" | "Strict";
}

/** What a sign-in, a sign-out or a revocation tells the hooks. Hooks observe; they cannot refuse. */
export interface SessionHooks {
  /** A session was created (after the callback verified the user). */
  onSignIn?(event: { userId: string; sessionId: string; organizationId?: string }): void | Promise<void>;
  /** A session ended by its own logout. */
  onSignOut?(event: { userId: string | null; sessionId: string }): void | Promise<void>;
  /** Sessions were revoked by someone else (the person elsewhere, an admin, a consumer). */
  onRevoke?(event: {
    userId: string;
    sessionId?: string;
    scope: "session" | "others" | "all";
    revoked: number;
  }): void | Promise<void>;
}

export interface SessionManagerOptions {
  cookie?: SessionCookieConfig;
  /** Idle timeout: a session unused this long ends. Default 7 days. */
  idleTimeout?: number;
  /** Absolute lifetime from login, however active. Default 30 days. */
  absoluteTimeout?: number;
  /** The record is rewritten (sliding the idle expiry) at most this often. Default 1 hour. */
  refreshInterval?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
  random?: RandomSource;
  /** The per-user session objects. Sessions are mirrored into them; revocation goes through them. */
  userSessions?: DurableObjectNamespace<UserSessions>;
  /** Default "strict" when `userSessions` is set (it needs it), else "eventual". */
  revocation?: RevocationMode;
  /** Called after sign-in, sign-out and revocation; a failing hook is logged, never fails the request. */
  hooks?: SessionHooks;
  /** How long a request waits for a hook before going on without it (it keeps running). Default 1000 ms. */
  hookTimeoutMs?: number;
  /** The per-organization objects: member index, kill switch, operator-set policy. */
  organizations?: DurableObjectNamespace<OrganizationSessions>;
  /** The deployment's session policy (default: no cap); checked by `validatePolicy`. An organization's own policy wins. */
  sessionPolicy?: Partial<SessionPolicy>;
  /** Policies per organization id, as configured (an operator's, set through the admin API, wins). */
  organizationPolicies?: Readonly<Record<string, Partial<SessionPolicy>>>;
  /** Record sign-ins on the user's timeline (default true; revocations are always recorded). */
  timeline?: boolean;
  /** Where a request comes from, for the timeline and devices (default `request.cf`). */
  location?: LocationSource;
  /** Absolute lifetime of a session an operator opened as someone else (impersonation), seconds. Default 1 hour. */
  impersonationTimeout?: number;
  /**
   * Device Bound Session Credentials (DBSC, ARCHITECTURE.md "Device binding"): `"off"` (default)
   * or `"opportunistic"`: a sign-in offers the browser to bind a key, and a session whose browser
   * did needs a fresh bound cookie too. Needs `userSessions`.
   */
  deviceBinding?: DeviceBindingSetting;
  /**
   * With device binding on and `cookie.domain` set, the site a bound session covers
   * (`include_site`): a bare https origin whose host is the registrable domain, default
   * `https://<cookie.domain>`. Set it only when the cookie's domain lies below the site
   * (`apps.example.com` → `"https://example.com"`). The site must serve
   * `/.well-known/device-bound-sessions` naming the auth worker (ARCHITECTURE.md "Every app of the team").
   */
  deviceBindingSite?: string;
}

export const SESSION_DEFAULTS = {
  cookieName: "gh_session",
  idleTimeout: 7 * 24 * 3600,
  absoluteTimeout: 30 * 24 * 3600,
  refreshInterval: 3600,
  impersonationTimeout: 3600,
} as const;

/** KV refuses `expirationTtl`/`expiration` closer than 60 s. */
export const KV_MIN_TTL = KV_MIN_TTL_SECONDS;

/** The settings as the session core reads them; `sessionPolicy` and `organizationPolicies` checked whole (`policy.ts`). */
export interface ResolvedSessionConfig extends DeploymentPolicies {
  cookieName: string;
  domain: string | undefined;
  secure: boolean;
  sameSite: "Lax" | "Strict";
  idleTimeout: number;
  absoluteTimeout: number;
  refreshInterval: number;
  clock: () => number;
  random: RandomSource | undefined;
  revocation: RevocationMode;
  hookTimeoutMs: number;
  timeline: boolean;
  location: LocationSource;
  impersonationTimeout: number;
  deviceBinding: DeviceBindingSetting;
  /** The site origin a bound session covers (`include_site: true`); undefined: host-only (no cookie domain, or binding off). */
  deviceBindingSite: string | undefined;
}

export function resolveSessionConfig(options: SessionManagerOptions = {}): ResolvedSessionConfig {
  const secure = options.cookie?.secure ?? true;
  const domain = options.cookie?.domain;
  const base = options.cookie?.name ?? SESSION_DEFAULTS.cookieName;
  const prefix = !secure ? "" : domain ? "__Secure-" : "__Host-";
  const idleTimeout = positive("idleTimeout", options.idleTimeout ?? SESSION_DEFAULTS.idleTimeout);
  const absoluteTimeout = positive("absoluteTimeout", options.absoluteTimeout ?? SESSION_DEFAULTS.absoluteTimeout);
  if (idleTimeout < KV_MIN_TTL || absoluteTimeout < KV_MIN_TTL) {
    throw new RangeError(`Session timeouts must be at least ${KV_MIN_TTL} seconds (KV's minimum expiry)`);
  }
  // Default: an hour, or half the idle timeout when that is shorter (a short idle timeout still slides).
  const refreshInterval = positive(
    "refreshInterval",
    options.refreshInterval ?? Math.min(SESSION_DEFAULTS.refreshInterval, Math.floor(idleTimeout / 2)),
  );
  if (!COOKIE_NAME.test(base) || /^__(Host|Secure)-/i.test(base)) {
    throw new TypeError(
      `cookie.name must be a cookie token without the __Host-/__Secure- prefix (derived), got ${JSON.stringify(base)}`,
    );
  }
  if (RESERVED_COOKIE_NAMES.test(base)) {
    throw new TypeError(
      `cookie.name ${JSON.stringify(base)} is the name of another Gatehouse cookie (CSRF or sign-in flow)`,
    );
  }
  // A single label ("com") is a public suffix browsers refuse; loopback names are for local development.
  if (domain !== undefined && (!DOMAIN.test(domain) || (!domain.includes(".") && domain !== "localhost"))) {
    throw new TypeError(`cookie.domain must be a host name such as "example.com", got ${JSON.stringify(domain)}`);
  }
  const hookTimeoutMs = options.hookTimeoutMs ?? 1000;
  if (!Number.isFinite(hookTimeoutMs) || hookTimeoutMs <= 0)
    throw new RangeError("hookTimeoutMs must be a positive number");
  const sameSite = options.cookie?.sameSite ?? "Lax";
  if (sameSite !== "Lax" && sameSite !== "Strict") throw new TypeError('cookie.sameSite must be "Lax" or "Strict"');
  const revocation = options.revocation ?? (options.userSessions ? "strict" : "eventual");
  if (revocation === "strict" && !options.userSessions) {
    throw new TypeError('revocation: "strict" needs the userSessions Durable Object namespace');
  }
  const impersonationTimeout = positive(
    "impersonationTimeout",
    options.impersonationTimeout ?? SESSION_DEFAULTS.impersonationTimeout,
  );
  if (impersonationTimeout < KV_MIN_TTL) {
    throw new RangeError(`impersonationTimeout must be at least ${KV_MIN_TTL} seconds (KV's minimum expiry)`);
  }
  const deviceBinding = deviceBindingSetting(options.deviceBinding);
  if (deviceBinding !== "off" && !options.userSessions) {
    throw new TypeError(`deviceBinding: "${deviceBinding}" needs the userSessions Durable Object namespace`);
  }
  const policies = deploymentPolicies(options);
  checkBindingPolicies(policies, deviceBinding);
  // Checked whenever it is given; in effect only with binding on.
  const site =
    deviceBinding !== "off" || options.deviceBindingSite !== undefined
      ? bindingSite(domain, options.deviceBindingSite, secure)
      : undefined;
  if (refreshInterval >= idleTimeout) {
    throw new RangeError("refreshInterval must be shorter than idleTimeout, or sessions would expire while in use");
  }
  return {
    cookieName: `${prefix}${base}`,
    domain,
    secure,
    sameSite,
    idleTimeout,
    absoluteTimeout,
    refreshInterval,
    clock: options.clock ?? Date.now,
    random: options.random,
    revocation,
    hookTimeoutMs,
    ...policies,
    timeline: options.timeline ?? true,
    location: options.location ?? edgeLocation,
    impersonationTimeout,
    deviceBinding,
    deviceBindingSite: deviceBinding === "off" ? undefined : site,
  };
}

/** A policy may require device binding only where the deployment has it on; else a TypeError naming the policy. */
export function checkBindingPolicies(policies: DeploymentPolicies, deviceBinding: DeviceBindingSetting): void {
  if (deviceBinding !== "off") return;
  const asking = [
    ["sessionPolicy", policies.sessionPolicy] as const,
    ...[...policies.organizationPolicies].map(([id, policy]) => [`organizationPolicies.${id}`, policy] as const),
  ].find(([, policy]) => policy.deviceBindingRoles);
  if (asking) throw new TypeError(`${asking[0]}.deviceBindingRoles needs deviceBinding: "opportunistic"`);
}

/** The CSRF cookie (`gh_csrf`) and the sign-in flow cookies (`gh_login_<state>`): a session cookie must not take their names. */
const RESERVED_COOKIE_NAMES = /^gh_(csrf|login_.*)$/i;
/** RFC 6265 cookie-name token. */
const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A host name: dot-separated labels of letters, digits and hyphens (no leading dot, no port). */
const DOMAIN =
  /^(?=.{1,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0)
    throw new RangeError(`${name} must be a positive whole number of seconds`);
  return value;
}
