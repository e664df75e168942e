/**
 * @module
 * `DefaultIdentityClient`: the real identity client over `@workos-inc/node`
 * v11 (AuthKit). Reads IDENTITY_API_KEY and IDENTITY_CLIENT_ID; optional
 * IDENTITY_API_HOSTNAME / IDENTITY_API_PORT / IDENTITY_API_HTTPS point the SDK
 * at another host (the local identity provider in development and tests).
 * It forwards step-up (`prompt`, `maxAge`), reads `auth_time` and the
 * impersonator, and refreshes tokens without SDK retries (a retried refresh
 * would send a spent token again). It never logs tokens or credentials.
 */
import type { WorkOS } from "@workos-inc/node";
import { decodeJwt } from "jose";
import { withDeadline } from "../../../client-sdk/core/deadline";
import { parseJwtExpiry } from "../cookies";
import { AuthError } from "../errors";
import type { OrganizationMembership } from "../types";
import {
  type AuthorizationRequest,
  type CodeExchange,
  type IdentityAuthentication,
  type IdentityClient,
  type RefreshedTokens,
  type TokenRefresh,
  toProviderError,
} from "./identity-client";
import { createWorkOS } from "./workos";

export interface IdentityEnv {
  IDENTITY_API_KEY?: string;
  IDENTITY_CLIENT_ID?: string;
  IDENTITY_API_HOSTNAME?: string;
  IDENTITY_API_PORT?: string;
  IDENTITY_API_HTTPS?: string;
}

export interface DefaultIdentityClientOptions {
  /** Milliseconds before a provider call is abandoned. Default 10 000. */
  timeoutMs?: number;
}

export class DefaultIdentityClient implements IdentityClient {
  readonly #workos: WorkOS;
  /** The same credentials without SDK retries, for refreshes (built on first use). */
  #refresher: WorkOS | null = null;
  readonly #env: IdentityEnv;
  readonly #clientId: string;
  readonly #timeoutMs: number;

  constructor(env: IdentityEnv, options: DefaultIdentityClientOptions = {}) {
    const missing = (["IDENTITY_API_KEY", "IDENTITY_CLIENT_ID"] as const).filter((k) => !env[k]);
    if (missing.length > 0) {
      throw new AuthError("config_missing", {
        status: 500,
        message: `DefaultIdentityClient needs ${missing.join(" and ")} (set them with \`wrangler secret put\` or in .dev.vars)`,
      });
    }
    this.#env = env;
    this.#clientId = env.IDENTITY_CLIENT_ID!;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#workos = createWorkOS(env, {
      apiKey: env.IDENTITY_API_KEY!,
      clientId: this.#clientId,
      timeoutMs: this.#timeoutMs,
    });
  }

  getAuthorizationUrl(request: AuthorizationRequest): string {
    return this.#workos.userManagement.getAuthorizationUrl({
      provider: "authkit",
      clientId: this.#clientId,
      redirectUri: request.redirectUri,
      state: request.state,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: "S256",
      ...(request.organizationId ? { organizationId: request.organizationId } : {}),
      ...(request.prompt ? { prompt: request.prompt } : {}),
      ...(request.maxAge !== undefined ? { maxAge: checkedMaxAge(request.maxAge) } : {}),
    });
  }

  async authenticateWithCode(exchange: CodeExchange): Promise<IdentityAuthentication> {
    try {
      // The SDK's workerd HTTP client ignores its `timeout` option: bound every call ourselves.
      const auth = await this.#bounded(
        this.#workos.userManagement.authenticateWithCode({
          clientId: this.#clientId,
          code: exchange.code,
          codeVerifier: exchange.codeVerifier,
        }),
      );
      const memberships = await this.#bounded(this.#memberships(auth.user.id));
      const { providerSessionId, authenticatedAt } = accessTokenFacts(auth.accessToken);
      return {
        user: {
          id: auth.user.id,
          email: auth.user.email,
          firstName: auth.user.firstName,
          lastName: auth.user.lastName,
          memberships,
          ...(providerSessionId ? { providerSessionId } : {}),
        },
        ...(auth.organizationId ? { organizationId: auth.organizationId } : {}),
        accessToken: auth.accessToken,
        refreshToken: auth.refreshToken,
        ...(authenticatedAt !== undefined ? { authenticatedAt } : {}),
        ...(auth.impersonator
          ? { impersonator: { email: auth.impersonator.email, reason: auth.impersonator.reason ?? null } }
          : {}),
      };
    } catch (err) {
      throw toProviderError(err, "complete the sign-in");
    }
  }

  /**
   * One refresh-token grant, sent once: no SDK retry, since the provider may have spent the token
   * before a 5xx or a dropped connection. Expiry is the new access token's `exp` (0 when it has
   * none: treat it as expired, the rotated refresh token is still returned).
   */
  async refreshTokens(request: TokenRefresh): Promise<RefreshedTokens> {
    try {
      this.#refresher ??= createWorkOS(this.#env, {
        apiKey: this.#env.IDENTITY_API_KEY!,
        clientId: this.#clientId,
        timeoutMs: this.#timeoutMs,
        maxRetries: 0,
      });
      const auth = await this.#bounded(
        this.#refresher.userManagement.authenticateWithRefreshToken({
          clientId: this.#clientId,
          refreshToken: request.refreshToken,
          ...(request.organizationId ? { organizationId: request.organizationId } : {}),
        }),
      );
      const exp = parseJwtExpiry(auth.accessToken);
      return {
        accessToken: auth.accessToken,
        refreshToken: auth.refreshToken,
        accessTokenExpiresAt: exp === null ? 0 : exp * 1000,
      };
    } catch (err) {
      throw toProviderError(err, "refresh the session");
    }
  }

  async revokeSession(providerSessionId: string): Promise<void> {
    try {
      await this.#bounded(this.#workos.userManagement.revokeSession({ sessionId: providerSessionId }));
    } catch (err) {
      throw toProviderError(err, "end the session");
    }
  }

  #bounded<T>(promise: Promise<T>): Promise<T> {
    return withDeadline(promise, this.#timeoutMs, () => new ProviderTimeout(this.#timeoutMs));
  }

  /**
   * Active memberships with their role slug. `organizationSlug` is the
   * organization's `external_id` when set, else its name slugified
   * (see ARCHITECTURE.md "Organization slugs").
   */
  async #memberships(userId: string): Promise<OrganizationMembership[]> {
    const page = await this.#workos.userManagement.listOrganizationMemberships({
      userId,
      statuses: ["active"],
      limit: 100,
    });
    // The filter is a request; the status is the answer (WorkOS's emulator ignores `statuses`):
    // an inactive or pending membership never grants a role here.
    return Promise.all(
      page.data
        .filter((m) => m.status === "active")
        .map(async (m) => {
          const org = await this.#workos.organizations.getOrganization(m.organizationId);
          return {
            organizationId: m.organizationId,
            organizationSlug: org.externalId || slugify(org.name),
            role: m.role.slug,
          };
        }),
    );
  }
}

class ProviderTimeout extends Error {
  override name = "ProviderTimeout";
  constructor(ms: number) {
    super(`identity provider did not answer within ${ms} ms`);
  }
}

/**
 * What Gatehouse reads from an AuthKit access token (unverified: it came straight from the provider
 * over TLS): the WorkOS session id (`sid`) and the last active authentication (`auth_time`, seconds → ms).
 */
function accessTokenFacts(accessToken: string): { providerSessionId?: string; authenticatedAt?: number } {
  try {
    const { sid, auth_time: authTime } = decodeJwt(accessToken);
    return {
      ...(typeof sid === "string" ? { providerSessionId: sid } : {}),
      ...(typeof authTime === "number" && Number.isFinite(authTime) ? { authenticatedAt: authTime * 1000 } : {}),
    };
  } catch {
    return {};
  }
}

/** `max_age` must be whole seconds, 0 or more: a bad value would silently skip the step-up. */
function checkedMaxAge(maxAge: number): number {
  if (!Number.isSafeInteger(maxAge) || maxAge < 0) {
    throw new TypeError(`maxAge must be a whole number of seconds >= 0, got ${maxAge}`);
  }
  return maxAge;
}

export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63);
}
