/**
 * @module
 * An organization's session policy as an operator set it (contract: client-sdk/protocol/policy.ts),
 * kept whole as JSON in `settings`, so a new policy field needs nothing here. The worker reads it at
 * sign-in and merges it with the configured one (workers/auth/session/policy.ts); the user's object
 * enforces the result (durable-objects/user-sessions/policy.ts). It never validates: the admin API does.
 */
import type { SessionPolicy } from "../../client-sdk/protocol/policy";
import { deleteSetting, readSetting, writeSetting } from "./settings";

/** The operator's policy, or null (the worker's configured policy applies). */
export function readPolicy(sql: SqlStorage): SessionPolicy | null {
  const value = readSetting(sql, "policy");
  return value === null ? null : (JSON.parse(value) as SessionPolicy);
}

/** Sets the operator's policy; null removes it. */
export function writePolicy(sql: SqlStorage, policy: SessionPolicy | null): void {
  if (policy === null) deleteSetting(sql, "policy");
  else writeSetting(sql, "policy", JSON.stringify(policy));
}
