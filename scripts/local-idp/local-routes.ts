/**
 * Test and fault controls under `/__local/` (JSON only; they exist on this local server alone):
 * reset, fault injection, the live provider sessions, the demo directory, a code minted
 * without the sign-in page so workerd tests can finish a login programmatically, the directory
 * changes that emit webhooks (revoke a session, change a role, delete a user), the webhook outbox,
 * the refresh-token tally and armed impersonations.
 * (The security-event receiver is security-event-routes.ts; reset empties it too.)
 * Never reachable on a real provider; never exposes the API key or the signing key.
 */
import {
  addMembership,
  armImpersonation,
  cancelImpersonation,
  changeRole,
  deleteUser,
  removeMembership,
  revokeProviderSession,
} from "./actions.ts";
import type { IdpContext, IdpRequest, Route } from "./context.ts";
import { LocalIdpError } from "./errors.ts";
import { faultJson, parseFault } from "./faults.ts";
import { field, json, type Reply } from "./http.ts";
import type { RefreshTally } from "./refresh-tokens.ts";
import type { MembershipRecord, PendingImpersonation, ProviderSession } from "./store.ts";
import type { Delivery } from "./webhooks.ts";
import { membershipJson, organizationJson, userJson } from "./wire.ts";

function sessionJson(s: ProviderSession): Record<string, unknown> {
  return {
    id: s.id,
    user_id: s.userId,
    organization_id: s.organizationId,
    status: s.endedAt === null ? "active" : s.endReason,
    created_at: new Date(s.createdAt).toISOString(),
    auth_time: Math.floor(s.authTime / 1000),
    impersonator: s.impersonator,
  };
}

function health(ctx: IdpContext): Reply {
  return json(200, { ok: true, client_id: ctx.config.clientId, issuer: ctx.config.issuer });
}

function reset(ctx: IdpContext): Reply {
  ctx.store.reset();
  ctx.faults.clear();
  ctx.webhooks.clear();
  ctx.securityEvents.clear();
  return json(200, { ok: true });
}

function listFaults(ctx: IdpContext): Reply {
  return json(200, { data: ctx.faults.list().map(faultJson) });
}

async function addFault(ctx: IdpContext, req: IdpRequest): Promise<Reply> {
  const fault = parseFault(await req.body());
  ctx.faults.add(fault);
  return json(201, { fault: faultJson(fault) });
}

function clearFaults(ctx: IdpContext): Reply {
  ctx.faults.clear();
  return json(200, { ok: true });
}

function listSessions(ctx: IdpContext, req: IdpRequest): Reply {
  const userId = field(req.url.searchParams, "user_id") ?? undefined;
  return json(200, { data: ctx.store.liveSessions(userId).map(sessionJson) });
}

function directory(ctx: IdpContext): Reply {
  return json(200, {
    users: ctx.store.users().map(userJson),
    organizations: ctx.store.organizations().map(organizationJson),
    memberships: ctx.store.memberships().map((m) => membershipJson(m, ctx.store.organization(m.organizationId))),
  });
}

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The optional `auth_time` of `POST /__local/codes` (Unix seconds, not in the future) as ms: lets a
 * test sign someone in whose last authentication is old, to exercise step-up without a clock.
 */
function authTimeOf(ctx: IdpContext, body: Record<string, unknown>): number | undefined {
  const raw = body.auth_time;
  if (raw === undefined || raw === null) return undefined;
  const seconds = typeof raw === "string" && /^\d{1,12}$/.test(raw) ? Number(raw) : raw;
  if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 0 || seconds * 1000 > ctx.now()) {
    throw new LocalIdpError("invalid_request", 400, "auth_time must be Unix seconds, not in the future");
  }
  return seconds * 1000;
}

/** `POST /__local/codes`: what the sign-in page would issue, for a given user/organization/state/challenge. */
async function issueCode(ctx: IdpContext, req: IdpRequest): Promise<Reply> {
  const body = await req.body();
  const userId = field(body, "user_id");
  if (userId === null) throw new LocalIdpError("invalid_request", 400, "user_id is required");
  const challenge = field(body, "code_challenge");
  const method = field(body, "code_challenge_method") ?? "S256";
  if (challenge !== null && (method !== "S256" || !S256_CHALLENGE.test(challenge))) {
    throw new LocalIdpError("invalid_request", 400, "code_challenge must be an S256 challenge (43 base64url chars)");
  }
  const resolved = ctx.store.resolveSignIn(userId, field(body, "organization_id"));
  if (!resolved.ok) {
    throw new LocalIdpError("invalid_request", 400, `That user cannot sign in there (${resolved.reason})`);
  }
  const authTime = authTimeOf(ctx, body);
  const code = ctx.store.issueCode({
    clientId: ctx.config.clientId,
    userId,
    organizationId: resolved.value,
    codeChallenge: challenge,
    ...(authTime !== undefined && { authTime, authTimeClaim: true }),
  });
  const state = field(body, "state");
  const redirectUri = field(body, "redirect_uri");
  let redirectUrl: string | null = null;
  if (redirectUri !== null) {
    try {
      const url = new URL(redirectUri);
      url.searchParams.set("code", code.code);
      if (state !== null) url.searchParams.set("state", state);
      redirectUrl = url.toString();
    } catch {
      throw new LocalIdpError("invalid_request", 400, "redirect_uri is not a URL");
    }
  }
  return json(201, {
    code: code.code,
    state,
    user_id: userId,
    organization_id: resolved.value,
    expires_at: new Date(code.expiresAt).toISOString(),
    redirect_url: redirectUrl,
    auth_time: Math.floor(code.authTime / 1000),
    impersonator: code.impersonator,
  });
}

const membership = (ctx: IdpContext, m: MembershipRecord) =>
  membershipJson(m, ctx.store.organization(m.organizationId));

function deliveryJson(d: Delivery): Record<string, unknown> {
  return {
    id: d.id,
    event: d.event,
    created_at: d.createdAt,
    status: d.status,
    attempts: d.attempts,
    response_status: d.responseStatus,
    error: d.error,
    body: d.body,
    signature: d.signature,
  };
}

/** `POST /__local/sessions/:id/revoke`: ends a provider session (webhook `session.revoked`). */
function revokeSessionControl(ctx: IdpContext, req: IdpRequest): Reply {
  return json(200, { session: sessionJson(revokeProviderSession(ctx, req.params[0] ?? "")) });
}

/** `POST /__local/memberships/:id/role` `{ role }` (webhook `organization_membership.updated`). */
async function changeRoleControl(ctx: IdpContext, req: IdpRequest): Promise<Reply> {
  const role = field(await req.body(), "role");
  return json(200, { membership: membership(ctx, changeRole(ctx, req.params[0] ?? "", role)) });
}

/** `POST /__local/memberships` `{ user_id, organization_id, role }` (webhook `organization_membership.created`). */
async function addMembershipControl(ctx: IdpContext, req: IdpRequest): Promise<Reply> {
  const body = await req.body();
  const added = addMembership(ctx, field(body, "user_id"), field(body, "organization_id"), field(body, "role"));
  return json(201, { membership: membership(ctx, added) });
}

/** `DELETE /__local/memberships/:id` (webhook `organization_membership.deleted`). */
function removeMembershipControl(ctx: IdpContext, req: IdpRequest): Reply {
  return json(200, { membership: membership(ctx, removeMembership(ctx, req.params[0] ?? "")) });
}

/** `DELETE /__local/users/:id` (webhook `user.deleted`). */
function deleteUserControl(ctx: IdpContext, req: IdpRequest): Reply {
  return json(200, { user: userJson(deleteUser(ctx, req.params[0] ?? "")) });
}

/** `GET /__local/webhooks`: where events go and the last deliveries with their exact body and signature. */
function webhookOutbox(ctx: IdpContext): Reply {
  return json(200, { endpoint: ctx.webhooks.endpoint, deliveries: ctx.webhooks.deliveries().map(deliveryJson) });
}

function clearWebhookOutbox(ctx: IdpContext): Reply {
  ctx.webhooks.clear();
  return json(200, { ok: true });
}

const tallyJson = (t: RefreshTally) => ({
  refresh_calls: t.refreshCalls,
  rotated: t.rotated,
  refused_reuse: t.refusedReuse,
});

/** `GET /__local/token-stats`: every refresh-token grant and refused reuse since the last reset. */
function tokenStats(ctx: IdpContext): Reply {
  const stats = ctx.store.tokenStats();
  const bySession = Object.fromEntries(Object.entries(stats.bySession).map(([id, t]) => [id, tallyJson(t)]));
  return json(200, { ...tallyJson(stats), by_session: bySession });
}

function impersonationJson(p: PendingImpersonation): Record<string, unknown> {
  return {
    user_id: p.userId,
    impersonator: p.impersonator,
    organization_id: p.organizationId,
    created_at: new Date(p.createdAt).toISOString(),
  };
}

/** `POST /__local/impersonations` `{ user_id, impersonator_email, reason?, organization_id? }`. */
async function armImpersonationControl(ctx: IdpContext, req: IdpRequest): Promise<Reply> {
  const body = await req.body();
  const armed = armImpersonation(ctx, {
    userId: field(body, "user_id"),
    email: field(body, "impersonator_email"),
    reason: field(body, "reason"),
    organizationId: field(body, "organization_id"),
  });
  return json(201, { impersonation: impersonationJson(armed) });
}

function listImpersonations(ctx: IdpContext): Reply {
  return json(200, { data: ctx.store.pendingImpersonations().map(impersonationJson) });
}

function cancelImpersonationControl(ctx: IdpContext, req: IdpRequest): Reply {
  return json(200, { impersonation: impersonationJson(cancelImpersonation(ctx, req.params[0] ?? "")) });
}

const local = (method: Route["method"], path: string, handler: Route["handler"]): Route => ({
  method,
  pattern: new RegExp(`^/__local/${path}$`),
  endpoint: null,
  page: false,
  handler,
});

export const LOCAL_ROUTES: Route[] = [
  local("GET", "health", health),
  local("POST", "reset", reset),
  local("GET", "faults", listFaults),
  local("POST", "faults", addFault),
  local("DELETE", "faults", clearFaults),
  local("GET", "sessions", listSessions),
  local("GET", "directory", directory),
  local("POST", "codes", issueCode),
  local("POST", "sessions/([^/]+)/revoke", revokeSessionControl),
  local("POST", "memberships", addMembershipControl),
  local("POST", "memberships/([^/]+)/role", changeRoleControl),
  local("DELETE", "memberships/([^/]+)", removeMembershipControl),
  local("DELETE", "users/([^/]+)", deleteUserControl),
  local("GET", "webhooks", webhookOutbox),
  local("DELETE", "webhooks", clearWebhookOutbox),
  local("GET", "token-stats", tokenStats),
  local("GET", "impersonations", listImpersonations),
  local("POST", "impersonations", armImpersonationControl),
  local("DELETE", "impersonations/([^/]+)", cancelImpersonationControl),
];
