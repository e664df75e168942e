/**
 * @module
 * Session policy, the worker's door (contract: `client-sdk/protocol/policy.ts`; enforcement: the
 * session object at registration): the one check of a `SessionPolicy` from any source (options,
 * the admin API, the account console, the RPC), the merge of deployment and organization policy
 * into the one a sign-in gets, and the error a refusal by policy becomes. A new policy field is
 * checked and merged here; no caller names a field. Pure: never reads or writes storage.
 */
import type { SessionPolicy } from "../../../client-sdk/protocol/policy";
import { AuthError } from "../errors";

/** Largest cap a policy may set. */
export const MAX_SESSIONS_CAP = 1000;

/** How a policy is written, for messages (`policy must be { maxSessions, onLimit }`). */
export const POLICY_SHAPE = "{ maxSessions, onLimit, deviceBindingRoles }";
/** What the admin API answers to a body that is not a policy. */
export const POLICY_JSON_HINT = `Send JSON { "maxSessions": <1-${MAX_SESSIONS_CAP} or null>, "onLimit": "evict-oldest" | "refuse-new", "deviceBindingRoles": [<role>, …] | ["*"] | null }`;
/** Roles a policy may name for device binding; each a provider's role slug (or `*`). */
export const MAX_BINDING_ROLES = 20;
const ROLE = /^(?:\*|[A-Za-z0-9][A-Za-z0-9_:.-]{0,63})$/;

/** The deployment's policies as configured, checked: the default and the ones per organization id. */
export interface DeploymentPolicies {
  /** The default (no cap: `maxSessions` null). */
  sessionPolicy: SessionPolicy;
  /** Configured policies per organization id. */
  organizationPolicies: ReadonlyMap<string, SessionPolicy>;
}

/** Where an organization's policy comes from: an operator set it, the deployment configured it, or the default. */
export type PolicySource = "operator" | "configured" | "default";

/**
 * A whole policy from a partial one, checked (a missing or null field takes its default): a cap of
 * 1 to 1000 sessions or none, and what a sign-in past it does. Anything else throws a `RangeError`
 * or `TypeError` whose message starts with `${what}.` for a field, or `${what} must be` for the
 * whole; unknown fields are dropped. With `orNull`, null is an answer too (clear the policy).
 */
export function validatePolicy(input: unknown, what?: string): SessionPolicy;
export function validatePolicy(input: unknown, what: string, orNull: true): SessionPolicy | null;
export function validatePolicy(input: unknown, what = "sessionPolicy", orNull = false): SessionPolicy | null {
  if (input === null && orNull) return null;
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new TypeError(`${what} must be ${POLICY_SHAPE}${orNull ? " or null" : ""}`);
  }
  const partial = input as { [K in keyof SessionPolicy]?: unknown };
  const maxSessions = partial.maxSessions ?? null;
  if (
    maxSessions !== null &&
    (typeof maxSessions !== "number" ||
      !Number.isInteger(maxSessions) ||
      maxSessions < 1 ||
      maxSessions > MAX_SESSIONS_CAP)
  ) {
    throw new RangeError(`${what}.maxSessions must be a whole number from 1 to ${MAX_SESSIONS_CAP}, or null`);
  }
  const onLimit = partial.onLimit ?? "evict-oldest";
  if (onLimit !== "evict-oldest" && onLimit !== "refuse-new") {
    throw new TypeError(`${what}.onLimit must be "evict-oldest" or "refuse-new"`);
  }
  const roles = bindingRoles(partial.deviceBindingRoles ?? null, what);
  return { maxSessions, onLimit, ...(roles ? { deviceBindingRoles: roles } : {}) };
}

/** `deviceBindingRoles`: null, or 1 to 20 distinct role slugs (`*` alone for every member). */
function bindingRoles(value: unknown, what: string): string[] | null {
  if (value === null) return null;
  const message = `${what}.deviceBindingRoles must be null or a list of 1 to ${MAX_BINDING_ROLES} role names (or ["*"])`;
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_BINDING_ROLES) throw new TypeError(message);
  const roles = [...new Set(value)];
  if (!roles.every((role) => typeof role === "string" && ROLE.test(role))) throw new TypeError(message);
  if (roles.includes("*") && roles.length > 1) throw new TypeError(message);
  return roles as string[];
}

/** Why a session must be device-bound: the first membership whose organization's policy names its role. */
export interface BindingRequirement {
  /** The organization whose policy asks it; null: the deployment's default policy, for a person with no membership. */
  organizationId: string | null;
  /** Its slug, for the page that says why. */
  organizationSlug?: string;
  role: string;
}

/**
 * Whether a sign-in must bind a device, from each membership's organization policy (as `policyOf`
 * chose it) and, for a person with no membership, the deployment's default. Every session carries
 * all its person's memberships, so an admin signing in to another organization is still an admin
 * somewhere: any membership whose role its organization lists requires it.
 */
export function bindingRequirement(
  memberships: readonly { organizationId: string; organizationSlug?: string; role: string; policy: SessionPolicy }[],
  deployment: DeploymentPolicies,
): BindingRequirement | null {
  for (const m of memberships) {
    const roles = m.policy.deviceBindingRoles ?? null;
    if (roles?.includes("*") || roles?.includes(m.role)) {
      const slug = m.organizationSlug ? { organizationSlug: m.organizationSlug } : {};
      return { organizationId: m.organizationId, ...slug, role: roles?.includes("*") ? "*" : m.role };
    }
  }
  if (memberships.length === 0 && deployment.sessionPolicy.deviceBindingRoles?.includes("*")) {
    return { organizationId: null, role: "*" };
  }
  return null;
}

/** The deployment's options (`sessionPolicy`, `organizationPolicies`), each checked and named in its error. */
export function deploymentPolicies(options: {
  sessionPolicy?: Partial<SessionPolicy>;
  organizationPolicies?: Readonly<Record<string, Partial<SessionPolicy>>>;
}): DeploymentPolicies {
  return {
    sessionPolicy: validatePolicy(options.sessionPolicy === undefined ? {} : options.sessionPolicy),
    organizationPolicies: new Map(
      Object.entries(options.organizationPolicies ?? {}).map(([id, policy]) => [
        id,
        validatePolicy(policy, `organizationPolicies.${id}`),
      ]),
    ),
  };
}

/** One organization's policy: an operator's (`operator`, null when none), else the configured one, else the default. */
export function policyOf(
  organizationId: string,
  operator: SessionPolicy | null,
  deployment: DeploymentPolicies,
): { policy: SessionPolicy; source: PolicySource } {
  if (operator) return { policy: operator, source: "operator" };
  const configured = deployment.organizationPolicies.get(organizationId);
  return configured
    ? { policy: configured, source: "configured" }
    : { policy: deployment.sessionPolicy, source: "default" };
}

/**
 * The policy of a sign-in whose person belongs to organizations with these policies: the strictest
 * of them. Every session carries all its person's memberships, so signing in without an
 * organization (or into another one) must not escape an organization's cap. None: the default.
 */
export function mergePolicies(organizations: readonly SessionPolicy[], deployment: DeploymentPolicies): SessionPolicy {
  return organizations.length === 0 ? deployment.sessionPolicy : organizations.reduce(stricter);
}

/** The error a sign-in refused by policy answers (`RegisterResult.refusedBecause`), or null for another refusal. */
export function policyRefusal(refusedBecause: string | undefined): AuthError | null {
  if (refusedBecause !== "session_limit") return null;
  return new AuthError("session_limit_reached", {
    status: 403,
    message: "You are signed in on as many devices as your organization allows: sign out on one of them first.",
  });
}

/** The stricter of two policies: the lower cap (none is the loosest); on a tie, refusing new sign-ins. */
function stricter(a: SessionPolicy, b: SessionPolicy): SessionPolicy {
  const capA = a.maxSessions ?? Number.POSITIVE_INFINITY;
  const capB = b.maxSessions ?? Number.POSITIVE_INFINITY;
  if (capA !== capB) return capA < capB ? a : b;
  return a.onLimit === "refuse-new" ? a : b;
}
