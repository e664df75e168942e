/**
 * @module
 * The spec's route handler functions: `createLoginHandler`, `handleCallback`,
 * `handleLogout`. They are fetch-native (Request in, Response out) so they
 * mount anywhere. Every failure answers a readable page; no failure creates
 * a session, and none redirects back into the login (no loops).
 */
import { HmacSigner } from "../crypto";
import { AuthError } from "../errors";
import type { IdentityClient } from "../identity/identity-client";
import { LOGIN_ORGANIZATION_ID } from "../ids";
import type { SessionManager } from "../session/session-manager";
import type { IdentityUser } from "../types";
import { organizationLinks, signInAgainLinks } from "./error-links";
import { type LoginFlow, startLoginFlow, takeLoginFlow } from "./login-flow";
import { authErrorPage, errorPage } from "./pages";
import { providerErrorMessage } from "./provider-errors";
import { safeReturnTo } from "./return-to";

export interface LoginHandlerOptions {
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
  /** Origins (besides this one) that `return_to` may name, e.g. consuming apps. Default none. */
  returnOrigins?: readonly string[];
  /**
   * Signs the sign-in flow cookie so the callback can tell it was not altered: the
   * `SessionManager` whose `handleCallback` finishes the flow (its secret signs), or the
   * secret(s) themselves. Required: an unsigned flow would let a browser choose its tenant.
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
  if (!signer) {
    throw new AuthError("config_missing", {
      status: 500,
      message: "createLoginHandler needs options.sessionManager or options.secret to sign the sign-in flow",
    });
  }
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
  const check = await takeLoginFlow(request, state, isSecure(redirectUrl), clock(), sessionManager.signer);
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
    const message =
      check.reason === "expired"
        ? "This sign-in took too long and expired. Please start again."
        : "This sign-in was not started in this browser, or was already used. Please start again.";
    return errorPage(request, 400, check.reason === "expired" ? "login_expired" : "invalid_state", message, {
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
    if (flow.maxAge !== undefined) {
      // A step-up counts only if the provider says the person authenticated just now.
      const fresh =
        auth.authenticatedAt !== undefined && auth.authenticatedAt >= clock() - flow.maxAge * 1000 - AUTH_TIME_SKEW_MS;
      if (!fresh) {
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
    const { response } = await sessionManager.createSession(
      auth.user,
      organizationId,
      sessionManager.requestMeta(request),
      {
        tokens: {
          ...(auth.accessToken ? { accessToken: auth.accessToken } : {}),
          ...(auth.refreshToken ? { refreshToken: auth.refreshToken } : {}),
        },
        // Only the provider's word makes a sign-in recent: without `auth_time` it is unknown (0),
        // and the step-up check above already refused a step-up without one.
        authenticatedAt: auth.authenticatedAt ?? 0,
        ...(auth.impersonator ? { impersonator: auth.impersonator } : {}),
      },
    );
    const res = new Response(null, {
      status: 302,
      headers: { Location: safeReturnTo(flow.returnTo, "/", options.returnOrigins), "Cache-Control": "no-store" },
    });
    for (const c of response.headers.getSetCookie()) res.headers.append("Set-Cookie", c);
    res.headers.append("Set-Cookie", check.clearCookie);
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
