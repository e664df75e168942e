/**
 * @module
 * `FakeIdentityClient`: an in-memory identity client for tests (spec: "returns
 * synthetic users and tokens"). Any code it did not issue exchanges to a
 * synthetic user derived from the code, with access and refresh tokens;
 * explicitly added users and issued codes work as issued (one-time, PKCE
 * checked). No HTTP at all. Because it signs anyone in, `AuthServiceProvider`
 * refuses it unless the redirect URL is on loopback, or it was built with
 * `synthetic: false` (only issued codes sign in).
 */
import { base64url, sha256Base64url, sha256Hex } from "../crypto";
import { AuthError } from "../errors";
import type { IdentityUser } from "../types";
import type { AuthorizationRequest, CodeExchange, IdentityAuthentication, IdentityClient } from "./identity-client";

export interface FakeLogin {
  user: IdentityUser;
  organizationId?: string;
}

export type FakeFailure = "provider_error" | "provider_unavailable";

export interface FakeIdentityClientOptions {
  users?: IdentityUser[];
  authorizeUrl?: string;
  /** Any code it did not issue signs in a synthetic user (default true, as the spec says). */
  synthetic?: boolean;
  /** Milliseconds since the epoch, for the tokens' `iat`/`exp`. Default `Date.now`. */
  clock?: () => number;
  /** Lifetime of the synthetic access token, seconds. Default 300. */
  accessTokenTtl?: number;
}

export class FakeIdentityClient implements IdentityClient {
  /** Base URL of the fake hosted-login page in authorization URLs. */
  readonly authorizeUrl: string;
  readonly #codes = new Map<string, { login: FakeLogin; codeChallenge?: string }>();
  /** Codes issued and already exchanged: a replay is refused, never a synthetic sign-in. */
  readonly #used = new Set<string>();
  /** True when any code it did not issue signs a synthetic user in. */
  readonly synthetic: boolean;
  readonly #clock: () => number;
  readonly #accessTokenTtl: number;
  readonly #users = new Map<string, IdentityUser>();
  readonly revoked: string[] = [];
  readonly authorizations: AuthorizationRequest[] = [];
  #nextFailure: FakeFailure | null = null;
  #counter = 0;

  constructor(options: FakeIdentityClientOptions = {}) {
    this.authorizeUrl = options.authorizeUrl ?? "https://idp.fake.test/authorize";
    this.synthetic = options.synthetic ?? true;
    this.#clock = options.clock ?? Date.now;
    this.#accessTokenTtl = options.accessTokenTtl ?? 300;
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
    if (failure === "provider_error") {
      throw new AuthError("provider_error", { status: 400, message: "The sign-in code was rejected" });
    }
    if (!entry) {
      if (!this.synthetic || this.#used.has(exchange.code) || !exchange.code) {
        throw new AuthError("provider_error", { status: 400, message: "The sign-in code was rejected" });
      }
      this.#used.add(exchange.code);
      return this.#withTokens(await this.#syntheticLogin(exchange.code));
    }
    this.#used.add(exchange.code);
    if (entry.codeChallenge && entry.codeChallenge !== (await sha256Base64url(exchange.codeVerifier))) {
      throw new AuthError("provider_error", { status: 400, message: "PKCE verification failed" });
    }
    return this.#withTokens(entry.login);
  }

  /** A user derived from the code: the same code always names the same person. */
  async #syntheticLogin(code: string): Promise<FakeLogin> {
    const hash = (await sha256Hex(code)).slice(0, 20);
    return {
      user: {
        id: `user_fake_${hash}`,
        email: `${hash}@fake.gatehouse.test`,
        firstName: "Fake",
        lastName: hash.slice(0, 6),
        memberships: [],
        providerSessionId: `session_fake_${hash}`,
      },
    };
  }

  /** The login with JWT-shaped access and refresh tokens (unsigned: nothing verifies them). */
  #withTokens(login: FakeLogin): IdentityAuthentication {
    const now = Math.floor(this.#clock() / 1000);
    const encode = (value: object) => base64url(new TextEncoder().encode(JSON.stringify(value)));
    const token = (claims: object) => `${encode({ alg: "none", typ: "JWT" })}.${encode(claims)}.fake`;
    const sid = login.user.providerSessionId;
    return {
      ...login,
      accessToken: token({ sub: login.user.id, sid, iat: now, exp: now + this.#accessTokenTtl }),
      refreshToken: token({ sub: login.user.id, sid, iat: now, typ: "refresh" }),
    };
  }

  async revokeSession(providerSessionId: string): Promise<void> {
    this.revoked.push(providerSessionId);
  }
}
