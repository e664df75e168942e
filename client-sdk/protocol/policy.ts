/**
 * @module
 * Feature contract — session policy: the limits a deployment or an organization puts on a user's
 * sessions: the concurrent-session cap, and the roles whose sessions must be device-bound (DBSC). The worker merges deployment and organization
 * policy (`workers/auth/session/policy.ts`); the session object enforces it at registration
 * (`durable-objects/user-sessions/policy.ts`). The type and the shape an answer over the
 * service binding must have (`isSessionPolicy`); the checks with messages are the worker's.
 */

/** The cap on a user's concurrent sessions and what a sign-in past it does; the roles that must bind a device. */
export interface SessionPolicy {
  /** Live sessions a user may have at once; null: no cap. */
  maxSessions: number | null;
  /** `evict-oldest` (default): the new session stays, the oldest is signed out; `refuse-new`: the sign-in is refused. */
  onLimit: "evict-oldest" | "refuse-new";
  /**
   * Roles (as the identity provider names them, e.g. `admin`) whose sessions count only once bound
   * to a device key (device binding, issue 30); `["*"]`: every member; null: none. Needs the
   * deployment's `deviceBinding` on; a browser that cannot bind gets a page that says why.
   * Absent means null (policies stored before it existed read the same).
   */
  deviceBindingRoles?: string[] | null;
}

/** The shape of a policy in an answer (a misrouted binding fails loudly); not a check of its values. */
export function isSessionPolicy(value: unknown): value is SessionPolicy {
  if (typeof value !== "object" || value === null) return false;
  const policy = value as { [K in keyof SessionPolicy]?: unknown };
  return (policy.maxSessions === null || typeof policy.maxSessions === "number") && typeof policy.onLimit === "string";
}
