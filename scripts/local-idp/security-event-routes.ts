/**
 * `/__local/security-events`: the auth worker's signed security events arrive here (POST, with
 * `SECURITY_EVENTS_WEBHOOK_URL` pointed at it), and tests and people read (GET) or empty (DELETE)
 * what arrived. JSON only; a refusal names a generic code, never the secret or the expected signature.
 */
import { SECURITY_EVENT_ID_HEADER, SECURITY_EVENT_SIGNATURE_HEADER } from "../../client-sdk/security-events/index.ts";
import type { IdpContext, IdpRequest, Route } from "./context.ts";
import { LocalIdpError } from "./errors.ts";
import { json, type Reply } from "./http.ts";
import type { ReceivedSecurityEvent, SecurityEventRefusal } from "./security-events.ts";

/** A delivery larger than this is refused (413) before it is read in full. */
export const MAX_SECURITY_EVENT_BYTES = 256 * 1024;

const REFUSALS: Readonly<Record<SecurityEventRefusal, { status: number; message: string }>> = {
  not_configured: {
    status: 503,
    message: "Security events are off: start the provider with a secret (LOCAL_IDP_SECURITY_EVENTS_SECRET)",
  },
  missing_signature: { status: 401, message: `The ${SECURITY_EVENT_SIGNATURE_HEADER} header is missing` },
  malformed_signature: { status: 400, message: `The ${SECURITY_EVENT_SIGNATURE_HEADER} header is malformed` },
  stale_timestamp: { status: 401, message: "The signature's timestamp is outside the tolerance (a replay?)" },
  invalid_signature: { status: 401, message: "The signature does not match the body and the secret" },
  missing_event_id: { status: 400, message: `The ${SECURITY_EVENT_ID_HEADER} header is missing` },
  event_id_mismatch: { status: 400, message: `The ${SECURITY_EVENT_ID_HEADER} header is not the event's id` },
  invalid_event: { status: 400, message: "The body is not a security event (id, type, userId and at)" },
};

function header(req: IdpRequest, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  return typeof value === "string" ? value : null;
}

/** `POST /__local/security-events`: one signed delivery from the auth worker. */
async function receive(ctx: IdpContext, req: IdpRequest): Promise<Reply> {
  if (!ctx.securityEvents.enabled) refuse("not_configured");
  const body = await req.text(MAX_SECURITY_EVENT_BYTES);
  const outcome = await ctx.securityEvents.receive(
    body,
    header(req, SECURITY_EVENT_SIGNATURE_HEADER),
    header(req, SECURITY_EVENT_ID_HEADER),
  );
  if (!outcome.ok) refuse(outcome.reason);
  return json(200, { received: true, duplicate: outcome.duplicate });
}

function refuse(reason: SecurityEventRefusal): never {
  const { status, message } = REFUSALS[reason];
  throw new LocalIdpError(reason, status, message);
}

function receivedJson(r: ReceivedSecurityEvent): Record<string, unknown> {
  const e = r.event;
  return {
    id: e.id,
    received_at: new Date(r.receivedAt).toISOString(),
    type: e.type,
    user_id: e.userId,
    at: new Date(e.at).toISOString(),
    session_id: e.sessionId,
    device: e.device,
    ip: e.ip,
    location: e.location,
    actor: e.actor,
    detail: e.detail,
    duplicates: r.duplicates,
  };
}

/** `GET /__local/security-events`: the kept deliveries, newest first. */
function list(ctx: IdpContext): Reply {
  return json(200, { deliveries: ctx.securityEvents.list().map(receivedJson) });
}

function clear(ctx: IdpContext): Reply {
  ctx.securityEvents.clear();
  return json(200, { ok: true });
}

const route = (method: Route["method"], handler: Route["handler"]): Route => ({
  method,
  pattern: /^\/__local\/security-events$/,
  endpoint: null,
  page: false,
  handler,
});

export const SECURITY_EVENT_ROUTES: Route[] = [route("POST", receive), route("GET", list), route("DELETE", clear)];
