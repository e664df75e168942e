/**
 * @module
 * `IdentityClient`: what the auth module needs from a hosted identity
 * provider, and `IdentityClientToken`, the container key that resolves the
 * active one. Implementations map every provider failure to an `AuthError`
 * (`provider_error` 400 or `provider_unavailable` 502), never a raw SDK error.
 */
import { Token } from "../../../client-sdk/core/container";
import { AuthError } from "../errors";
import type { IdentityUser } from "../types";

export interface AuthorizationRequest {
  /** The exact registered callback URL (`auth.redirectUrl`). */
  redirectUri: string;
  /** One-time value bound to the browser, echoed back on the callback. */
  state: string;
  /** PKCE S256 challenge: base64url(SHA-256(code_verifier)). */
  codeChallenge: string;
  organizationId?: string;
  /** `"login"`: the person must authenticate again even with a live provider session (step-up). */
  prompt?: "login";
  /** Seconds: a person whose last authentication is older must authenticate again (OIDC `max_age`). */
  maxAge?: number;
}

export interface CodeExchange {
  code: string;
  codeVerifier: string;
}

export interface IdentityAuthentication {
  user: IdentityUser;
  /** The organization the person signed in to, if the provider chose one. */
  organizationId?: string;
  /** The provider's access token (a JWT; `parseJwtExpiry` reads its `exp`), when it returns one. */
  accessToken?: string;
  /** The provider's refresh token, when it returns one. */
  refreshToken?: string;
  /** When the person last actively authenticated (ms), from the access token's `auth_time`. */
  authenticatedAt?: number;
  /** Set when an operator signed in as this person (the provider's impersonation). */
  impersonator?: Impersonator;
}

/** Who is signed in as someone else, and why (the provider's impersonation). */
export interface Impersonator {
  email: string;
  reason: string | null;
}

export interface TokenRefresh {
  refreshToken: string;
  /** The organization the session is in, so the new access token carries it. */
  organizationId?: string;
}

export interface RefreshedTokens {
  accessToken: string;
  /** The rotated refresh token: the one sent is spent and must never be sent again. */
  refreshToken: string;
  /** When the access token expires (ms), from its `exp`. */
  accessTokenExpiresAt: number;
}

export interface IdentityClient {
  /** The provider's hosted-login URL for this flow. */
  getAuthorizationUrl(request: AuthorizationRequest): string;
  /** Exchanges the callback's code (with the PKCE verifier) for the user and memberships. */
  authenticateWithCode(exchange: CodeExchange): Promise<IdentityAuthentication>;
  /** Ends the provider-side session; best effort, callers do not wait on it for local logout. */
  revokeSession(providerSessionId: string): Promise<void>;
  /**
   * Exchanges a refresh token for fresh tokens (the provider rotates it). Optional: without it,
   * `getAccessToken` answers `refresh_unsupported`. Failures map like the rest (`provider_error`
   * 400 for a refused token, `provider_unavailable` 502).
   */
  refreshTokens?(request: TokenRefresh): Promise<RefreshedTokens>;
}

export const IdentityClientToken = new Token<IdentityClient>("IdentityClient");

/**
 * Every `FakeIdentityClient` built (internal, not exported by the package). `AuthServiceProvider`
 * asks this set rather than `instanceof FakeIdentityClient`, so a worker that never builds one does
 * not bundle the class.
 */
export const fakeIdentityClients: WeakSet<IdentityClient> = new WeakSet();

/** Maps any provider/SDK failure to a client-safe `AuthError`. */
export function toProviderError(err: unknown, action: string): AuthError {
  if (err instanceof AuthError) return err;
  const status = typeof err === "object" && err !== null && "status" in err ? Number(err.status) : Number.NaN;
  if (status === 401 || status === 403) {
    // Our credentials were refused: an operator problem, not the person's. Never loop them back to login.
    console.error(
      "gatehouse: the identity provider refused our credentials (check IDENTITY_API_KEY / IDENTITY_CLIENT_ID)",
    );
    return new AuthError("provider_unavailable", {
      status: 502,
      message: `Sign-in is misconfigured on this site; the identity provider could not ${action}.`,
      cause: err,
    });
  }
  if (Number.isFinite(status) && status >= 400 && status < 500 && status !== 429 && status !== 408) {
    return new AuthError("provider_error", {
      status: 400,
      message: `The identity provider refused to ${action}. Please sign in again.`,
      cause: err,
    });
  }
  return new AuthError("provider_unavailable", {
    status: 502,
    message: `The identity provider could not ${action} right now. Please try again shortly.`,
    cause: err,
  });
}
