/**
 * `POST /user_management/authenticate`: the authorization-code grant (client secret and/or PKCE
 * S256, one-time codes that expire after 10 minutes) and the rotating refresh-token grant (every
 * call counted, a spent token refused). An impersonated session answers WorkOS's `impersonator`.
 * Answers WorkOS's authentication response or its OAuth error shape; never issues tokens for a
 * code or refresh token it did not mint, and never lets a code or refresh token be used twice.
 */
import { type IdpContext, type IdpRequest, requireApiKey } from "./context.ts";
import { ROLE_PERMISSIONS } from "./demo-data.ts";
import { LocalIdpError, oauthError } from "./errors.ts";
import { field, json, type Reply } from "./http.ts";
import { secretEquals, verifyPkce } from "./signer.ts";
import type { ProviderSession } from "./store.ts";
import { userJson } from "./wire.ts";

/** Authentication method reported for a local sign-in; an impersonated one reports `Impersonation`. */
const AUTHENTICATION_METHOD = "Password";

export async function authenticate(ctx: IdpContext, req: IdpRequest): Promise<Reply> {
  const body = await req.body();
  const clientId = field(body, "client_id");
  if (clientId === null) throw oauthError("invalid_request", 400, "client_id is required.");
  if (clientId !== ctx.config.clientId) throw oauthError("invalid_client", 400, `Unknown client_id '${clientId}'.`);
  const secret = field(body, "client_secret");
  if (secret !== null && !secretEquals(secret, ctx.config.apiKey)) {
    throw oauthError("invalid_client", 401, "Invalid client secret.");
  }
  const grant = field(body, "grant_type");
  if (grant === "authorization_code") return codeGrant(ctx, body, secret !== null);
  if (grant === "refresh_token") return refreshGrant(ctx, body);
  throw oauthError("unsupported_grant_type", 400, `Unsupported grant_type '${grant ?? ""}'.`);
}

async function codeGrant(ctx: IdpContext, body: Record<string, unknown>, hasSecret: boolean): Promise<Reply> {
  const code = field(body, "code");
  if (code === null) throw oauthError("invalid_request", 400, "code is required.");
  const redeemed = ctx.store.redeemCode(code);
  if (!redeemed.ok) {
    const why = { unknown: "is invalid", used: "has already been used", expired: "has expired" }[redeemed.reason];
    throw oauthError("invalid_grant", 400, `The code ${why}.`);
  }
  const grant = redeemed.value;
  if (grant.clientId !== ctx.config.clientId) throw oauthError("invalid_grant", 400, "The code is invalid.");
  const verifier = field(body, "code_verifier");
  if (grant.codeChallenge !== null) {
    if (verifier === null) throw oauthError("invalid_grant", 400, "code_verifier is required for this code.");
    if (!verifyPkce(verifier, grant.codeChallenge)) throw oauthError("invalid_grant", 400, "Invalid code_verifier.");
  } else if (!hasSecret) {
    throw oauthError("invalid_client", 401, "client_secret is required for a code issued without PKCE.");
  }
  const user = ctx.store.user(grant.userId);
  if (!user) throw oauthError("invalid_grant", 400, "The user no longer exists.");
  const { session, refreshToken } = ctx.store.createSession(grant.userId, grant.organizationId, {
    authTime: grant.authTime,
    impersonator: grant.impersonator,
    authTimeClaim: grant.authTimeClaim === true,
  });
  return authResponse(ctx, session, refreshToken);
}

async function refreshGrant(ctx: IdpContext, body: Record<string, unknown>): Promise<Reply> {
  const token = field(body, "refresh_token");
  if (token === null) throw oauthError("invalid_request", 400, "refresh_token is required.");
  const rotated = ctx.store.rotateRefreshToken(token, field(body, "organization_id"));
  if (!rotated.ok) {
    const why = {
      unknown: "Refresh token is invalid.",
      used: "Refresh token has already been used.",
      session_ended: "Session has already ended.",
      not_a_member: "The user is not a member of that organization.",
    }[rotated.reason];
    throw oauthError("invalid_grant", 400, why);
  }
  return authResponse(ctx, rotated.value.session, rotated.value.refreshToken);
}

async function authResponse(ctx: IdpContext, session: ProviderSession, refreshToken: string): Promise<Reply> {
  const user = ctx.store.user(session.userId);
  if (!user) throw oauthError("invalid_grant", 400, "The user no longer exists.");
  const membership = session.organizationId ? ctx.store.membership(session.userId, session.organizationId) : null;
  const role = membership?.role ?? null;
  const accessToken = await ctx.signer.sign({
    issuer: ctx.config.issuer,
    userId: user.id,
    sessionId: session.id,
    organizationId: session.organizationId,
    role,
    permissions: role === null ? [] : (ROLE_PERMISSIONS[role] ?? []),
    authTime: session.authTimeClaim || ctx.config.authTimeClaim ? session.authTime : null,
    impersonatorEmail: session.impersonator?.email ?? null,
  });
  return json(200, {
    user: userJson(user),
    ...(session.organizationId !== null && { organization_id: session.organizationId }),
    access_token: accessToken,
    refresh_token: refreshToken,
    authentication_method: session.impersonator === null ? AUTHENTICATION_METHOD : "Impersonation",
    ...(session.impersonator !== null && {
      impersonator: { email: session.impersonator.email, reason: session.impersonator.reason },
    }),
  });
}

/** `POST /user_management/sessions/revoke` `{ session_id }`: ends a provider session (idempotent). */
export async function revokeSession(ctx: IdpContext, req: IdpRequest): Promise<Reply> {
  requireApiKey(ctx, req);
  const sessionId = field(await req.body(), "session_id");
  if (sessionId === null) throw new LocalIdpError("invalid_request", 400, "session_id is required");
  if (!ctx.store.endSession(sessionId, "revoked")) {
    throw new LocalIdpError("entity_not_found", 404, `Session not found: '${sessionId}'.`);
  }
  return json(200, {});
}
