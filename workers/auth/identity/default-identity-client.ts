/**
 * @module
 * `DefaultIdentityClient`: the real identity client over `@workos-inc/node`
 * v11 (AuthKit). Reads IDENTITY_API_KEY and IDENTITY_CLIENT_ID; optional
 * IDENTITY_API_HOSTNAME / IDENTITY_API_PORT / IDENTITY_API_HTTPS point the SDK
 * at another host (the local identity provider in development and tests).
 * It never logs tokens or credentials.
 */
import type { WorkOS } from "@workos-inc/node";
import { decodeJwt } from "jose";
import { withDeadline } from "../../../client-sdk/core/deadline";
import { AuthError } from "../errors";
import type { OrganizationMembership } from "../types";
import {
  type AuthorizationRequest,
  type CodeExchange,
  type IdentityAuthentication,
  type IdentityClient,
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
      const providerSessionId = sessionIdOf(auth.accessToken);
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
      };
    } catch (err) {
      throw toProviderError(err, "complete the sign-in");
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
    return Promise.all(
      page.data.map(async (m) => {
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

/** The WorkOS session id is the access token's `sid` claim. */
function sessionIdOf(accessToken: string): string | undefined {
  try {
    const { sid } = decodeJwt(accessToken);
    return typeof sid === "string" ? sid : undefined;
  } catch {
    return undefined;
  }
}

export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63);
}
