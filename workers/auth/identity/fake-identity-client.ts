/**
 * @module
 * `FakeIdentityClient`: an in-memory identity client for tests. Synthetic
 * users and codes, configurable memberships and failures, no HTTP at all.
 * It must never be registered in production: `AuthServiceProvider` only uses
 * it when given explicitly.
 */
import { sha256Base64url } from "../crypto";
import { AuthError } from "../errors";
import type { IdentityUser } from "../types";
import type { AuthorizationRequest, CodeExchange, IdentityAuthentication, IdentityClient } from "./identity-client";

export interface FakeLogin {
  user: IdentityUser;
  organizationId?: string;
}

export type FakeFailure = "provider_error" | "provider_unavailable";

export class FakeIdentityClient implements IdentityClient {
  /** Base URL of the fake hosted-login page in authorization URLs. */
  readonly authorizeUrl: string;
  readonly #codes = new Map<string, { login: FakeLogin; codeChallenge?: string }>();
  readonly #users = new Map<string, IdentityUser>();
  readonly revoked: string[] = [];
  readonly authorizations: AuthorizationRequest[] = [];
  #nextFailure: FakeFailure | null = null;
  #counter = 0;

  constructor(options: { users?: IdentityUser[]; authorizeUrl?: string } = {}) {
    this.authorizeUrl = options.authorizeUrl ?? "https://idp.fake.test/authorize";
    for (const user of options.users ?? []) this.#users.set(user.id, user);
  }

  addUser(user: IdentityUser): this {
    this.#users.set(user.id, user);
    return this;
  }

  /** Makes the next `authenticateWithCode` fail the way a provider would. */
  failNext(failure: FakeFailure): this {
    this.#nextFailure = failure;
    return this;
  }

  /**
   * Issues a one-time code for a known user, as the hosted page would after
   * the person signs in. Pass the flow's code challenge to have PKCE checked.
   */
  issueCode(userId: string, options: { organizationId?: string; codeChallenge?: string } = {}): string {
    const user = this.#users.get(userId);
    if (!user) throw new Error(`FakeIdentityClient: unknown user ${userId}`);
    const code = `fake_code_${++this.#counter}_${crypto.randomUUID()}`;
    const providerSessionId = `session_fake_${this.#counter}`;
    this.#codes.set(code, {
      login: {
        user: { ...user, providerSessionId },
        ...(options.organizationId ? { organizationId: options.organizationId } : {}),
      },
      ...(options.codeChallenge ? { codeChallenge: options.codeChallenge } : {}),
    });
    return code;
  }

  getAuthorizationUrl(request: AuthorizationRequest): string {
    this.authorizations.push(request);
    const url = new URL(this.authorizeUrl);
    url.searchParams.set("redirect_uri", request.redirectUri);
    url.searchParams.set("state", request.state);
    url.searchParams.set("code_challenge", request.codeChallenge);
    url.searchParams.set("code_challenge_method", "S256");
    if (request.organizationId) url.searchParams.set("organization_id", request.organizationId);
    return url.toString();
  }

  async authenticateWithCode(exchange: CodeExchange): Promise<IdentityAuthentication> {
    const failure = this.#nextFailure;
    this.#nextFailure = null;
    if (failure === "provider_unavailable") {
      throw new AuthError("provider_unavailable", { status: 502, message: "The identity provider is unavailable" });
    }
    const entry = this.#codes.get(exchange.code);
    this.#codes.delete(exchange.code);
    if (failure === "provider_error" || !entry) {
      throw new AuthError("provider_error", { status: 400, message: "The sign-in code was rejected" });
    }
    if (entry.codeChallenge && entry.codeChallenge !== (await sha256Base64url(exchange.codeVerifier))) {
      throw new AuthError("provider_error", { status: 400, message: "PKCE verification failed" });
    }
    return entry.login;
  }

  async revokeSession(providerSessionId: string): Promise<void> {
    this.revoked.push(providerSessionId);
  }
}
