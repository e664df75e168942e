/**
 * @module
 * `FakeIdentityClient`: an in-memory identity client for tests (spec: "returns
 * synthetic users and tokens"). Any code it did not issue exchanges to a
 * synthetic user derived from the code, with access and refresh tokens;
 * explicitly added users and issued codes work as issued (one-time, PKCE
 * checked, optionally impersonated or authenticated long ago). Refresh tokens
 * rotate and work once; every refresh is recorded in `refreshCalls`. No HTTP
 * at all. Because it signs anyone in, `AuthServiceProvider` refuses it unless
 * the redirect URL is on loopback, or it was built with `synthetic: false`
 * (only issued codes sign in).
 */
import { base64url, sha256Base64url, sha256Hex } from "../crypto";
import { AuthError } from "../errors";
import type { IdentityUser } from "../types";
import {
  type AuthorizationRequest,
  type CodeExchange,
  fakeIdentityClients,
  type IdentityAuthentication,
  type IdentityClient,
  type Impersonator,
  type RefreshedTokens,
  type TokenRefresh,
} from "./identity-client";

export interface FakeLogin {
  user: IdentityUser;
  organizationId?: string;
  /** When the person authenticated (ms). Default: when the code was issued (a synthetic code: exchanged). */
  authenticatedAt?: number;
  /** Makes the login an impersonation: the answer carries it, the access token an `act` claim. */
  impersonator?: Impersonator;
}

/** What `issueCode` may say about the sign-in besides the user. */
export interface FakeCodeOptions {
  organizationId?: string;
  /** The flow's PKCE challenge, to have the verifier checked at the exchange. */
  codeChallenge?: string;
  /** When the person authenticated (ms), e.g. long ago to exercise step-up. Default: now. */
  authenticatedAt?: number;
  /** Signs in as the user on behalf of this operator. */
  impersonator?: Impersonator;
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
  /** Every `refreshTokens` call, in order (refused ones too): a test can prove one refresh, never a reuse. */
  readonly refreshCalls: TokenRefresh[] = [];
  /** refresh token → the login it continues, and whether it was already exchanged (single use). */
  readonly #refreshTokens = new Map<string, { login: FakeLogin; used: boolean }>();
  #nextFailure: FakeFailure | null = null;
  #nextRefreshFailure: FakeFailure | null = null;
  #counter = 0;

  constructor(options: FakeIdentityClientOptions = {}) {
    this.authorizeUrl = options.authorizeUrl ?? "https://idp.fake.test/authorize";
    this.synthetic = options.synthetic ?? true;
    this.#clock = options.clock ?? Date.now;
    this.#accessTokenTtl = options.accessTokenTtl ?? 300;
    for (const user of options.users ?? []) this.#users.set(user.id, user);
    fakeIdentityClients.add(this);
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

  /** Makes the next `refreshTokens` fail the way a provider would; the token sent stays unspent. */
  failNextRefresh(failure: FakeFailure): this {
    this.#nextRefreshFailure = failure;
    return this;
  }

  /**
   * Issues a one-time code for a known user, as the hosted page would after
   * the person signs in. Pass the flow's code challenge to have PKCE checked.
   */
  issueCode(userId: string, options: FakeCodeOptions = {}): string {
    const user = this.#users.get(userId);
    if (!user) throw new Error(`FakeIdentityClient: unknown user ${userId}`);
    const code = `fake_code_${++this.#counter}_${crypto.randomUUID()}`;
    const providerSessionId = `session_fake_${this.#counter}`;
    this.#codes.set(code, {
      login: {
        user: { ...user, providerSessionId },
        ...(options.organizationId ? { organizationId: options.organizationId } : {}),
        authenticatedAt: options.authenticatedAt ?? this.#clock(),
        ...(options.impersonator ? { impersonator: { ...options.impersonator } } : {}),
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
    if (request.prompt) url.searchParams.set("prompt", request.prompt);
    if (request.maxAge !== undefined) url.searchParams.set("max_age", String(request.maxAge));
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
    const settled: FakeLogin = { ...login, authenticatedAt: login.authenticatedAt ?? this.#clock() };
    const { accessToken } = this.#accessToken(settled);
    return { ...settled, accessToken, refreshToken: this.#mintRefreshToken(settled) };
  }

  /**
   * Rotates a refresh token it issued: the one sent is spent, a new pair comes back. A spent,
   * unknown or revoked-session token is refused (`provider_error` 400), as is an organization the
   * user is not in (when the user has memberships). The login keeps its `authenticatedAt` and impersonator.
   */
  async refreshTokens(request: TokenRefresh): Promise<RefreshedTokens> {
    this.refreshCalls.push({ ...request });
    const failure = this.#nextRefreshFailure;
    this.#nextRefreshFailure = null;
    if (failure === "provider_unavailable") {
      throw new AuthError("provider_unavailable", { status: 502, message: "The identity provider is unavailable" });
    }
    const entry = failure === null ? this.#refreshTokens.get(request.refreshToken) : undefined;
    if (!entry || entry.used) throw refused("The refresh token was rejected");
    entry.used = true;
    const { user } = entry.login;
    if (user.providerSessionId && this.revoked.includes(user.providerSessionId)) {
      throw refused("The session has ended");
    }
    const organizationId = request.organizationId ?? entry.login.organizationId;
    if (
      organizationId !== undefined &&
      user.memberships.length > 0 &&
      !user.memberships.some((m) => m.organizationId === organizationId)
    ) {
      throw refused("The user is not a member of that organization");
    }
    const login: FakeLogin = { ...entry.login, ...(organizationId !== undefined ? { organizationId } : {}) };
    const { accessToken, exp } = this.#accessToken(login);
    return { accessToken, refreshToken: this.#mintRefreshToken(login), accessTokenExpiresAt: exp * 1000 };
  }

  async revokeSession(providerSessionId: string): Promise<void> {
    this.revoked.push(providerSessionId);
  }

  /** Claims like AuthKit's: `sid`, `org_id`, `auth_time` (seconds), `act` when impersonated. */
  #accessToken(login: FakeLogin): { accessToken: string; exp: number } {
    const now = Math.floor(this.#clock() / 1000);
    const exp = now + this.#accessTokenTtl;
    const claims = {
      sub: login.user.id,
      sid: login.user.providerSessionId,
      ...(login.organizationId ? { org_id: login.organizationId } : {}),
      ...(login.authenticatedAt !== undefined ? { auth_time: Math.floor(login.authenticatedAt / 1000) } : {}),
      ...(login.impersonator ? { act: { sub: login.impersonator.email } } : {}),
      iat: now,
      exp,
    };
    return { accessToken: fakeJwt(claims), exp };
  }

  #mintRefreshToken(login: FakeLogin): string {
    const now = Math.floor(this.#clock() / 1000);
    const jti = `${++this.#counter}_${crypto.randomUUID()}`;
    const token = fakeJwt({ sub: login.user.id, sid: login.user.providerSessionId, iat: now, typ: "refresh", jti });
    this.#refreshTokens.set(token, { login, used: false });
    return token;
  }
}

/** An unsigned JWT-shaped token (`alg: none`): `parseJwtExpiry` and `decodeJwt` read it, nothing verifies it. */
function fakeJwt(claims: object): string {
  const encode = (value: object) => base64url(new TextEncoder().encode(JSON.stringify(value)));
  return `${encode({ alg: "none", typ: "JWT" })}.${encode(claims)}.fake`;
}

function refused(message: string): AuthError {
  return new AuthError("provider_error", { status: 400, message });
}
