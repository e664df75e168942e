/**
 * @module
 * Session policy as the user's object enforces it (contract: client-sdk/protocol/policy.ts; the
 * worker merges the deployment's and the organizations' policy: workers/auth/session/policy.ts).
 * The policy comes with the sign-in and is kept on its row, and every moment it can act passes
 * through here: `admit` at `register` (the cap on concurrent sessions; the row's expiry) and
 * `slide` at each use (`touch`). A new policy field is enforced in this file only. It decides and
 * records refusals; it never revokes (lifecycle ends the sessions it names).
 */
import type { RevocationActor } from "../../client-sdk/protocol/security-record";
import type { SessionMirror } from "./schema";
import { deviceKey, type SecurityRecord } from "./security-record";

/** Who ends the sessions the cap evicts (on the timeline, in the receipt, in the tabs' message). */
export const CAP_ACTOR: RevocationActor = { kind: "policy", label: "max_sessions" };

/** What the policy decides for a sign-in, before its row is written. */
export type Admission =
  | { admitted: false; refusedBecause: "session_limit" }
  | {
      admitted: true;
      /** Live sessions to end so that the cap holds (`evict-oldest`), oldest first. */
      evict: string[];
      /** What the row keeps: its expiry, and the policy (JSON) later moments read. */
      row: { expiresAt: number; policy: string | null };
    };

/** The columns of a session row `slide` reads: `policy` is the sign-in's (JSON `SessionPolicy`; null for none). */
export type PolicyRow = {
  absolute_expires_at: number;
  policy: string | null;
};

/**
 * Applies the sign-in's policy at `register`: past `maxSessions` live sessions, the oldest are
 * evicted (`evict-oldest`) or this one is refused (`refuse-new`, recorded once per device and place
 * per 10 minutes). Synchronous, and the caller inserts the row in the same block: concurrent
 * sign-ins each see the others, so exactly the cap remain.
 */
export function admit(sql: SqlStorage, record: SecurityRecord, session: SessionMirror, now: number): Admission {
  const policy = session.policy;
  const row = { expiresAt: session.expiresAt, policy: policy ? JSON.stringify(policy) : null };
  const cap = policy?.maxSessions ?? null;
  if (cap === null) return { admitted: true, evict: [], row };
  const live = sql
    .exec<{ id: string }>(
      "SELECT id FROM sessions WHERE expires_at > ? AND id != ? ORDER BY created_at, id",
      now,
      session.id,
    )
    .toArray()
    .map((r) => r.id);
  if (live.length < cap) return { admitted: true, evict: [], row };
  if (policy?.onLimit === "refuse-new") {
    // Once per device and place per 10 minutes: a burst of refused sign-ins is one event.
    record.attempt(
      `limit:${deviceKey(session.deviceClass, session.location)}`,
      {
        type: "session.refused",
        actor: CAP_ACTOR,
        device: session.device ?? null,
        ip: session.ip ?? null,
        location: session.location ?? null,
        detail: { reason: "session_limit", maxSessions: cap },
      },
      now,
    );
    return { admitted: false, refusedBecause: "session_limit" };
  }
  return { admitted: true, evict: live.slice(0, live.length - cap + 1), row };
}

/** The expiry a use sets (`touch`): the worker's sliding expiry, never past the absolute one. */
export function slide(row: PolicyRow, expiresAt: number): number {
  return Math.min(expiresAt, Number(row.absolute_expires_at));
}
