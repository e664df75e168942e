/**
 * @module
 * Feature contract — session policy: the limits a deployment or an organization puts on a user's
 * sessions (today the concurrent-session cap). The worker merges deployment and organization
 * policy (`workers/auth/session/policy.ts`); the session object enforces it at registration
 * (`durable-objects/user-sessions/policy.ts`). Types only.
 */

/** The cap on a user's concurrent sessions and what a sign-in past it does. */
export interface SessionPolicy {
  /** Live sessions a user may have at once; null: no cap. */
  maxSessions: number | null;
  /** `evict-oldest` (default): the new session stays, the oldest is signed out; `refuse-new`: the sign-in is refused. */
  onLimit: "evict-oldest" | "refuse-new";
}
