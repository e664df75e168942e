/**
 * @module
 * Provider access, the worker's door (contract: `client-sdk/protocol/provider-access.ts`): a fresh
 * access token of the identity provider for a session, refreshed one at a time in the user's session
 * object (the refresh token never leaves it), and a signed single-use ticket for the session's live
 * channel (`live-ticket.ts`). Also the shape the sign-in's tokens are kept in. Never logs a token.
 */
import { parseJwtExpiry } from "../cookies";
import type { HmacSigner } from "../crypto";
import { AuthError } from "../errors";
import { signLiveTicket } from "./live-ticket";
import type { SessionObjects } from "./session-objects";

/** The session of a Cookie header, as far as this door needs it (`SessionLifecycle.resolve`). */
export type ResolveCookie = (
  cookieHeader: string | null | undefined,
) => Promise<{ sessionId: string; user: { id: string } } | null>;

export class ProviderAccess {
  readonly #signer: HmacSigner;
  readonly #objects: SessionObjects | undefined;
  readonly #resolve: ResolveCookie;

  constructor(signer: HmacSigner, objects: SessionObjects | undefined, resolve: ResolveCookie) {
    this.#signer = signer;
    this.#objects = objects;
    this.#resolve = resolve;
  }

  /**
   * A fresh access token for the session in this Cookie header. Throws `unauthenticated` (401)
   * without a session, `reauthentication_required` (401) when the provider refused the token (or a
   * refresh was cut short), `no_provider_tokens` (409) when the sign-in gave none,
   * `refresh_unsupported` (501), `provider_unavailable` (502).
   */
  async accessToken(cookieHeader: string | null | undefined): Promise<{ accessToken: string; expiresAt: number }> {
    const session = await this.#resolve(cookieHeader);
    if (!session) throw new AuthError("unauthenticated", { status: 401, message: "Sign in first." });
    if (!this.#objects) {
      throw new AuthError("no_provider_tokens", { status: 409, message: "This worker keeps no provider tokens." });
    }
    const answer = await this.#objects.accessToken(session.user.id, session.sessionId);
    if (answer.ok) return { accessToken: answer.accessToken, expiresAt: answer.expiresAt };
    throw (ACCESS_TOKEN_ERRORS[answer.reason] ?? ACCESS_TOKEN_ERRORS.provider_unavailable!)();
  }

  /**
   * A ticket for the live channel of the session in this Cookie header: single-use, valid for two
   * minutes, bound to that session, signed with its user. Null without an active session or objects.
   */
  async liveTicket(
    cookieHeader: string | null | undefined,
  ): Promise<{ ticket: string; userId: string; sessionId: string; expiresAt: number } | null> {
    if (!this.#objects) return null;
    const session = await this.#resolve(cookieHeader);
    if (!session) return null;
    const minted = await this.#objects.mintTicket(session.user.id, session.sessionId);
    if (!minted) return null;
    const ticket = await signLiveTicket(this.#signer, session.user.id, minted);
    return { ticket, expiresAt: minted.expiresAt, userId: session.user.id, sessionId: session.sessionId };
  }
}

/** The provider's tokens as the session object keeps them, with the access token's expiry read from it. */
export function tokensOf(tokens: { accessToken?: string; refreshToken?: string }): {
  accessToken?: string;
  accessTokenExpiresAt?: number;
  refreshToken?: string;
} {
  const exp = tokens.accessToken ? parseJwtExpiry(tokens.accessToken) : null;
  return {
    ...(tokens.accessToken ? { accessToken: tokens.accessToken } : {}),
    ...(exp !== null ? { accessTokenExpiresAt: exp * 1000 } : {}),
    ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
  };
}

/** What each refusal of `UserSessions.accessToken` means to a caller. */
const ACCESS_TOKEN_ERRORS: Record<string, () => AuthError> = {
  session_inactive: () => new AuthError("unauthenticated", { status: 401, message: "Sign in first." }),
  reauthentication_required: () =>
    new AuthError("reauthentication_required", {
      status: 401,
      message: "Your sign-in with the identity provider has to be renewed: please sign in again.",
    }),
  no_refresh_token: () =>
    new AuthError("no_provider_tokens", { status: 409, message: "This session holds no identity-provider tokens." }),
  refresh_unsupported: () =>
    new AuthError("refresh_unsupported", { status: 501, message: "The identity client cannot refresh tokens." }),
  provider_unavailable: () =>
    new AuthError("provider_unavailable", {
      status: 502,
      message: "The identity provider could not renew the sign-in right now. Please try again shortly.",
    }),
};
