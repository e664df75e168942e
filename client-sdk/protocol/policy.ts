/**
 * @module
 * Feature contract — session policy: the limits a deployment or an organization puts on a user's
 * sessions (today the concurrent-session cap). The worker merges deployment and organization
 * policy (`workers/auth/session/policy.ts`); the session object enforces it at registration
 * (`durable-objects/user-sessions/policy.ts`). The type and the shape an answer over the
 * service binding must have (`isSessionPolicy`); the checks with messages are the worker's.
 */

/** The cap on a user's concurrent sessions and what a sign-in past it does. */
export interface SessionPolicy {
  /** Live sessions a user may have at once; null: no cap. */
  maxSessions: number | null;
  /** `evict-oldest` (default): the new session stays, the oldest is signed out; `refuse-new`: the sign-in is refused. */
  onLimit: "evict-oldest" | "refuse-new";
}

/** The shape of a policy in an answer (a misrouted binding fails loudly); not a check of its values. */
export function isSessionPolicy(value: unknown): value is SessionPolicy {
  if (typeof value !== "object" || value === null) return false;
  const policy = value as { [K in keyof SessionPolicy]?: unknown };
  return (policy.maxSessions === null || typeof policy.maxSessions === "number") && typeof policy.onLimit === "string";
}
