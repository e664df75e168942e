/**
 * @module
 * What every admin API route answers with: JSON that is never cached, the actor of a revocation
 * (the label of the admin token that authorized the request, never the token), and its line on
 * the operator log.
 */
import { getRequestValue } from "../../../../client-sdk/core/middleware";
import type { RevocationActor } from "../../../../client-sdk/protocol/security-record";
import type { OperatorAction, OperatorLog } from "../operator-log";
import { AdminLabelKey } from "../tokens";

export function json(status: number, body: unknown): Response {
  return Response.json(body, { status, headers: { "Cache-Control": "no-store" } });
}

export function adminActor(request: Request): RevocationActor {
  return { kind: "admin", label: getRequestValue(request, AdminLabelKey) ?? "admin" };
}

/** The answer to a user id that fails `isUserId`. */
export function invalidUserId(): Response {
  return json(400, { error: "invalid_user_id", message: "The user id is not valid" });
}

/** Writes what an admin token did to the operator log, as `api:<token label>`. */
export function logApiAction(
  log: OperatorLog,
  actor: RevocationActor,
  action: OperatorAction,
  target: string | null,
  receiptId: string | null | undefined,
): Promise<void> {
  return log.record({
    action,
    operator: `api:${actor.label ?? "admin"}`,
    target,
    receiptId: receiptId ?? null,
  });
}
