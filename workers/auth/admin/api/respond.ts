/**
 * @module
 * What every admin API route answers with: JSON that is never cached, and the actor of a revocation
 * (the label of the admin token that authorized the request, never the token).
 */
import { getRequestValue } from "../../../../client-sdk/core/middleware";
import type { RevocationActor } from "../../../../client-sdk/protocol/security-record";
import { AdminLabelKey } from "../tokens";

export function json(status: number, body: unknown): Response {
  return Response.json(body, { status, headers: { "Cache-Control": "no-store" } });
}

export function adminActor(request: Request): RevocationActor {
  return { kind: "admin", label: getRequestValue(request, AdminLabelKey) ?? "admin" };
}
