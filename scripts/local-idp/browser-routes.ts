/**
 * The browser-facing endpoints: `GET /user_management/authorize` (the sign-in page; `max_age` and
 * `prompt=login` ask for a fresh authentication, which every click on it is), its form submission
 * (issues a one-time code, authenticated at the click, and redirects to `redirect_uri`) and
 * `GET /user_management/sessions/logout`. Never redirects to a URI outside the allow-list;
 * parameter errors before `redirect_uri` is trusted answer a 400 page instead of redirecting.
 */
import type { IdpContext, IdpRequest, Route } from "./context.ts";
import { field, html, isAllowedRedirect, type Reply, redirect } from "./http.ts";
import { renderMessagePage, renderSignInPage, type SignInUser } from "./pages.ts";

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** OIDC `max_age`: a whole number of seconds. */
const MAX_AGE = /^\d{1,10}$/;
/** `prompt` values the page honours: each needs a person at the page, which this page always does. */
const INTERACTIVE_PROMPTS = new Set(["login", "consent", "select_account"]);

function badRequest(title: string, message: string): Reply {
  return html(400, renderMessagePage(title, message));
}

function withParams(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  return url.toString();
}

/** An OAuth error sent back to the (already validated) redirect URI. */
function redirectError(uri: string, state: string | null, error: string, description: string): Reply {
  return redirect(withParams(uri, { error, error_description: description, state }));
}

function showSignIn(ctx: IdpContext, req: IdpRequest): Reply {
  const query = req.url.searchParams;
  const clientId = field(query, "client_id");
  if (clientId === null) return badRequest("Invalid sign-in request", "client_id is missing.");
  if (clientId !== ctx.config.clientId) {
    return badRequest("Unknown application", `No application with client_id '${clientId}' is registered here.`);
  }
  const redirectUri = field(query, "redirect_uri");
  if (redirectUri === null) return badRequest("Invalid sign-in request", "redirect_uri is missing.");
  if (!isAllowedRedirect(redirectUri, ctx.config.redirectOrigins)) {
    return badRequest(
      "Redirect URI not allowed",
      `'${redirectUri}' is not a loopback URL or an allowed origin (LOCAL_IDP_REDIRECT_ORIGINS).`,
    );
  }
  const state = field(query, "state");
  if (field(query, "response_type") !== "code") {
    return redirectError(redirectUri, state, "unsupported_response_type", "response_type must be code.");
  }
  const challenge = field(query, "code_challenge");
  const method = field(query, "code_challenge_method");
  if ((challenge === null) !== (method === null) || (method !== null && method !== "S256")) {
    return redirectError(redirectUri, state, "invalid_request", "PKCE needs code_challenge with method S256.");
  }
  if (challenge !== null && !S256_CHALLENGE.test(challenge)) {
    return redirectError(redirectUri, state, "invalid_request", "code_challenge is not an S256 challenge.");
  }
  const organizationId = field(query, "organization_id");
  if (organizationId !== null && !ctx.store.organization(organizationId)) {
    return redirectError(redirectUri, state, "invalid_request", `Unknown organization '${organizationId}'.`);
  }
  const rawMaxAge = field(query, "max_age");
  if (rawMaxAge !== null && !MAX_AGE.test(rawMaxAge)) {
    return redirectError(redirectUri, state, "invalid_request", "max_age must be a whole number of seconds.");
  }
  const prompt = field(query, "prompt");
  const prompts = prompt === null ? [] : prompt.split(" ");
  if (prompts.includes("none")) {
    // OIDC: `none` forbids any page, and this provider always shows one.
    return redirectError(redirectUri, state, "login_required", "The person must sign in on the provider's page.");
  }
  if (!prompts.every((p) => INTERACTIVE_PROMPTS.has(p))) {
    return redirectError(redirectUri, state, "invalid_request", "prompt may be login, consent or select_account.");
  }
  const maxAge = rawMaxAge === null ? null : Number(rawMaxAge);
  const request = ctx.store.createAuthorizationRequest({
    clientId,
    redirectUri,
    state,
    codeChallenge: challenge,
    organizationId,
    maxAge,
    prompt,
  });
  const users: SignInUser[] = ctx.store.users().map((user) => ({
    id: user.id,
    name: `${user.firstName} ${user.lastName}`,
    email: user.email,
    choices: ctx.store.signInChoices(user.id, organizationId).map((orgId) => ({
      organizationId: orgId,
      organizationName: orgId === null ? null : (ctx.store.organization(orgId)?.name ?? orgId),
      role: orgId === null ? null : (ctx.store.membership(user.id, orgId)?.role ?? null),
    })),
    impersonatedBy: ctx.store.pendingImpersonation(user.id)?.impersonator.email ?? null,
  }));
  const appHost = new URL(redirectUri).host;
  const reauthentication = prompt !== null || maxAge !== null ? { prompt, maxAge } : null;
  return html(
    200,
    renderSignInPage({
      requestId: request.id,
      appHost,
      users: users.filter((u) => u.choices.length),
      reauthentication,
    }),
  );
}

async function submitSignIn(ctx: IdpContext, req: IdpRequest): Promise<Reply> {
  const body = await req.body();
  const request = ctx.store.authorizationRequest(field(body, "request_id") ?? "");
  if (!request) {
    return badRequest(
      "Sign-in expired",
      "This sign-in request has expired or was already used. Start again from the app.",
    );
  }
  if (field(body, "cancel") !== null) {
    ctx.store.completeAuthorizationRequest(request.id);
    return redirectError(request.redirectUri, request.state, "access_denied", "The user cancelled the sign-in.");
  }
  const userId = field(body, "user_id") ?? "";
  const resolved = ctx.store.resolveSignIn(userId, field(body, "organization_id"), request.organizationId);
  if (!resolved.ok) return badRequest("Invalid choice", `That user cannot sign in there (${resolved.reason}).`);
  ctx.store.completeAuthorizationRequest(request.id);
  const { code } = ctx.store.issueCode({
    clientId: request.clientId,
    userId,
    organizationId: resolved.value,
    codeChallenge: request.codeChallenge,
  });
  return redirect(withParams(request.redirectUri, { code, state: request.state }));
}

function logout(ctx: IdpContext, req: IdpRequest): Reply {
  const query = req.url.searchParams;
  const sessionId = field(query, "session_id");
  if (sessionId === null) return badRequest("Invalid sign-out request", "session_id is missing.");
  const returnTo = field(query, "return_to");
  if (returnTo !== null && !isAllowedRedirect(returnTo, ctx.config.redirectOrigins)) {
    return badRequest("Return URL not allowed", `'${returnTo}' is not a loopback URL or an allowed origin.`);
  }
  // Signing out of a session that already ended (or never existed) still signs the person out.
  ctx.store.endSession(sessionId, "logout");
  if (returnTo !== null) return redirect(returnTo);
  return html(200, renderMessagePage("Signed out", "You are signed out of the local identity provider."));
}

export const BROWSER_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/user_management\/authorize$/,
    endpoint: "authorize",
    page: true,
    handler: showSignIn,
  },
  {
    method: "POST",
    pattern: /^\/user_management\/authorize$/,
    endpoint: "authorize",
    page: true,
    handler: submitSignIn,
  },
  {
    method: "GET",
    pattern: /^\/user_management\/sessions\/logout$/,
    endpoint: "sessions_logout",
    page: true,
    handler: logout,
  },
];
