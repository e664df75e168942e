/**
 * @module
 * The spec's route handler functions: `createLoginHandler`, `handleCallback`,
 * `handleLogout`. They are fetch-native (Request in, Response out) so they
 * mount anywhere. Every failure answers a readable page; no failure creates
 * a session, and none redirects back into the login (no loops).
 */
import { DBSC_HEADERS } from "../../../client-sdk/protocol/device-binding";
import { HmacSigner } from "../crypto";
import { AuthError } from "../errors";
import { type LoginFlow, startLoginFlow, takeLoginFlow } from "../flow/login-flow";
import { safeReturnTo } from "../flow/return-to";
import type { IdentityClient } from "../identity/identity-client";
import { LOGIN_ORGANIZATION_ID } from "../ids";
import { authErrorPage, errorPage } from "../pages";
import { organizationLinks, signInAgainLinks } from "../pages/error-links";
import type { SessionManager } from "../session/session-manager";
import type { IdentityUser } from "../types";
import { deviceBindingUrl } from "./device-binding";
import { providerErrorMessage } from "./provider-errors";

export interface LoginHandlerOptions {
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
  /** Origins (besides this one) that `return_to` may name, e.g. consuming apps. Default none. */
  returnOrigins?: readonly string[];
  /**
   * Signs the sign-in flow cookie so the callback can tell it was not altered: the
   * `SessionManager` whose `handleCallback` finishes the flow (its secret signs), or the
   * secret(s) themselves. Without either (the spec's two arguments) the flow is unsigned: still
   * bound to this browser by its host-only HttpOnly cookie (state and PKCE verifier), the
   * organization checked against the person's memberships and `return_to` again at the callback,
   * but a step-up (`max_age`) never counts from it. A host-chosen tenant or step-up needs a signer.
   */
  sessionManager?: Pick<SessionManager, "signer">;
  secret?: string | readonly string[];
}

function isSecure(redirectUrl: string): boolean {
  return !redirectUrl.startsWith("http:");
}

/** The largest `max_age` a step-up may ask for (a day). */
const MAX_STEP_UP_AGE = 86_400;
/** Clock difference allowed between the provider's `auth_time` and ours. */
const AUTH_TIME_SKEW_MS = 30_000;

/**
 * Returns a handler that starts a login: GET `?return_to=/path&organization_id=org_…`
 * → 302 to the provider's hosted login, with this flow's state cookie.
 */
export function createLoginHandler(
  identityClient: IdentityClient,
  redirectUrl: string,
  options: LoginHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const clock = options.clock ?? Date.now;
  const signer = options.sessionManager?.signer ?? (options.secret ? new HmacSigner(options.secret) : null);
  return async (request) => {
    const url = new URL(request.url);
    const organizationId = url.searchParams.get("organization_id") ?? undefined;
    if (organizationId !== undefined && !LOGIN_ORGANIZATION_ID.test(organizationId)) {
      return errorPage(request, 400, "invalid_request", "organization_id is not a valid organization id.");
    }
    const returnTo = safeReturnTo(url.searchParams.get("return_to") ?? "/", "/", options.returnOrigins);
    // A step-up (`max_age`, seconds): the provider must authenticate the person again if their last
    // authentication is older, and the callback checks that it did.
    const maxAgeParam = url.searchParams.get("max_age");
    const maxAge = maxAgeParam === null ? undefined : Number(maxAgeParam);
    if (maxAge !== undefined && (!/^\d{1,7}$/.test(maxAgeParam ?? "") || maxAge > MAX_STEP_UP_AGE)) {
      return errorPage(request, 400, "invalid_request", "max_age is a whole number of seconds.");
    }
    try {
      const { flow, codeChallenge, setCookies } = await startLoginFlow(request, {
        returnTo,
        ...(organizationId ? { organizationId } : {}),
        ...(maxAge !== undefined ? { maxAge } : {}),
        secure: isSecure(redirectUrl),
        now: clock(),
        signer,
      });
      const location = identityClient.getAuthorizationUrl({
        redirectUri: redirectUrl,
        state: flow.state,
        codeChallenge,
        ...(organizationId ? { organizationId } : {}),
        ...(maxAge !== undefined ? { maxAge, prompt: "login" as const } : {}),
      });
      const res = new Response(null, { status: 302, headers: { Location: location, "Cache-Control": "no-store" } });
      for (const c of setCookies) res.headers.append("Set-Cookie", c);
      return res;
    } catch (err) {
      return authErrorPage(request, err);
    }
  };
}

export interface CallbackOptions {
  clock?: () => number;
  /** Same list as the login handler's: re-checked on the way out. */
  returnOrigins?: readonly string[];
  /**
   * Refuse a flow whose cookie is not signed (`invalid_state`): for hosts whose login handler
   * always signs (the auth worker does), so an unsigned flow can only be a browser's own making.
   */
  requireSignedFlow?: boolean;
}

/** The callback route: checks state, exchanges the code, creates the session, redirects to return_to or "/". */
export async function handleCallback(
  request: Request,
  sessionManager: SessionManager,
  identityClient: IdentityClient,
  redirectUrl: string,
  options: CallbackOptions = {},
): Promise<Response> {
  const url = new URL(request.url);
  const clock = options.clock ?? sessionManager.config.clock;
  const state = url.searchParams.get("state") ?? "";
  const check = await takeLoginFlow(
    request,
    state,
    isSecure(redirectUrl),
    clock(),
    sessionManager.signer,
    options.requireSignedFlow,
  );
  const clear: HeadersInit = check.clearCookie ? [["Set-Cookie", check.clearCookie]] : [];

  const providerError = url.searchParams.get("error");
  if (providerError !== null) {
    // Never the query's own words: anyone can craft this URL and send it to a person. "Try again"
    // repeats this browser's sign-in (only a verified flow's return_to, organization and step-up).
    return errorPage(request, 400, "access_denied", providerErrorMessage(providerError), {
      title: providerError === "access_denied" ? "Sign-in cancelled" : "Not signed in",
      links: signInAgainLinks(check.ok ? check.flow : null, options.returnOrigins),
      headers: clear,
    });
  }
  const code = url.searchParams.get("code");
  if (!code || code.length > 2048) {
    return errorPage(request, 400, "invalid_request", "The sign-in response has no code.", {
      retryLogin: true,
      headers: clear,
    });
  }
  if (!check.ok) {
    const expired = check.reason === "expired";
    const message = expired
      ? "This sign-in took too long and expired. Please start again."
      : "This sign-in was not started in this browser, or was already used. Please start again.";
    return errorPage(request, 400, expired ? "login_expired" : "invalid_state", message, {
      retryLogin: true,
      headers: clear,
    });
  }
  const flow: LoginFlow = check.flow;
  let signedIn: IdentityUser | undefined;
  try {
    const auth = await identityClient.authenticateWithCode({ code, codeVerifier: flow.codeVerifier });
    signedIn = auth.user;
    // The provider's answer decides the tenant; a requested one is only a wish, and createSession
    // refuses either unless the user is a member (403 organization_not_allowed).
    const organizationId = auth.organizationId ?? flow.organizationId;
    // A step-up (`max_age` with `prompt=login`) counts only when it completes a flow this browser
    // started for a step-up with a signed flow cookie; an `auth_time`, when the provider sends
    // one, must itself be recent. Without one, recency rests on the provider honouring the request
    // (see ARCHITECTURE.md, "Step-up"): the sign-in is recent as of this callback.
    const stepUpAge = check.signed ? flow.maxAge : undefined;
    if (stepUpAge !== undefined) {
      const stale =
        auth.authenticatedAt !== undefined && auth.authenticatedAt < clock() - stepUpAge * 1000 - AUTH_TIME_SKEW_MS;
      if (stale) {
        throw new AuthError("step_up_required", {
          status: 403,
          message: "The identity provider did not confirm that you signed in again. Please try again.",
        });
      }
    }
    // A sign-in replaces the session this browser had (no orphan behind the new cookie), whoever it
    // was: the flow cookie proves this browser started this sign-in. An operator's impersonation
    // never ends a session (it may not sign anyone out; its own one is capped at the impersonation timeout).
    const previous = await sessionManager.resolveSession(request).catch(() => null);
    const { response, sessionId, record } = await sessionManager.createSession(
      auth.user,
      organizationId,
      sessionManager.requestMeta(request),
      {
        tokens: {
          ...(auth.accessToken ? { accessToken: auth.accessToken } : {}),
          ...(auth.refreshToken ? { refreshToken: auth.refreshToken } : {}),
        },
        // A plain sign-in may ride on the provider's own session: without `auth_time` its recency is
        // unknown (0). A step-up's is the provider's `auth_time`, or this callback's time.
        authenticatedAt: auth.authenticatedAt ?? (stepUpAge !== undefined ? clock() : 0),
        ...(auth.impersonator ? { impersonator: auth.impersonator } : {}),
      },
    );
    const returnTo = safeReturnTo(flow.returnTo, "/", options.returnOrigins);
    // A role that must bind a device waits on the binding page first (it goes on once bound).
    const location = record.bindingRequired ? deviceBindingUrl(returnTo) : returnTo;
    const res = new Response(null, { status: 302, headers: { Location: location, "Cache-Control": "no-store" } });
    for (const c of response.headers.getSetCookie()) res.headers.append("Set-Cookie", c);
    res.headers.append("Set-Cookie", check.clearCookie);
    // Device binding on: offer the browser to bind a key to the new session (never fails the sign-in).
    const registration = await sessionManager.deviceRegistrationHeader(auth.user.id, sessionId).catch(() => null);
    if (registration) res.headers.set(DBSC_HEADERS.registration, registration);
    if (previous && !auth.impersonator) {
      // The same person: their tabs reload into the new session; another person: they go to the signed-out page.
      const reason = previous.user.id === auth.user.id ? "replaced" : "replaced_by_other_user";
      await sessionManager
        .revokeSessionOf(previous.user.id, previous.sessionId, reason, { kind: "user" })
        .catch((err: unknown) => {
          console.warn("gatehouse: could not end the replaced session", err instanceof Error ? err.message : err);
        });
    }
    return res;
  } catch (err) {
    if (err instanceof AuthError && err.code === "organization_not_allowed" && signedIn) {
      // The provider told us the person's organizations: offer a sign-in into each of them.
      return errorPage(request, 403, err.code, err.message, {
        links: organizationLinks(signedIn.memberships, {
          returnTo: safeReturnTo(flow.returnTo, "/", options.returnOrigins),
        }),
        headers: clear,
      });
    }
    return authErrorPage(request, err, clear);
  }
}

export { handleLogout, type LogoutOptions } from "./logout";
