/**
 * The sign-ins in flight on the local identity provider: authorization requests the sign-in page
 * keeps server-side until a person picks a user, and the one-time codes it (or `/__local/codes`)
 * issues. Both expire after 10 minutes; a code is spent on its first presentation. Holds no
 * directory and never decides who may sign in: the store checks that before issuing.
 */
import { randomSecret } from "./ids.ts";
import type { Impersonator } from "./impersonations.ts";

/** Codes and pending authorization requests live this long. */
export const CODE_TTL_MS = 10 * 60 * 1000;

/** What the authorize page was asked for, kept server-side until a person picks a user. */
export interface AuthorizationRequest {
  id: string;
  clientId: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string | null;
  /** Restricts the choice to this organization (the `organization_id` authorize parameter). */
  organizationId: string | null;
  /** The `max_age` authorize parameter (seconds): the app wants an authentication this recent. */
  maxAge: number | null;
  /** The `prompt` authorize parameter, e.g. `login` (sign in again even with a live session). */
  prompt: string | null;
  expiresAt: number;
}

/** What creating an authorization request needs; `maxAge` and `prompt` default to null. */
export type AuthorizationRequestInput = Omit<AuthorizationRequest, "id" | "expiresAt" | "maxAge" | "prompt"> &
  Partial<Pick<AuthorizationRequest, "maxAge" | "prompt">>;

export interface AuthorizationCode {
  code: string;
  clientId: string;
  userId: string;
  organizationId: string | null;
  codeChallenge: string | null;
  /** When the person authenticated (ms): their click on the sign-in page, or when the code was minted. */
  authTime: number;
  /** Set when an impersonation was armed for this user: the session it starts is impersonated. */
  impersonator: Impersonator | null;
  /** Its tokens carry `auth_time` whatever the provider's setting (a test asked for one). */
  authTimeClaim?: boolean;
  expiresAt: number;
  used: boolean;
}

/** What issuing a code needs; `authTime` defaults to now, the impersonator comes from an armed one. */
export type CodeInput = Omit<AuthorizationCode, "code" | "expiresAt" | "used" | "authTime" | "impersonator"> & {
  authTime?: number;
};

export type RedeemRefusal = "unknown" | "used" | "expired";

export class SignInLedger {
  readonly #now: () => number;
  readonly #requests = new Map<string, AuthorizationRequest>();
  readonly #codes = new Map<string, AuthorizationCode>();

  constructor(now: () => number) {
    this.#now = now;
  }

  createRequest(input: AuthorizationRequestInput): AuthorizationRequest {
    this.#prune();
    const request: AuthorizationRequest = {
      maxAge: null,
      prompt: null,
      ...input,
      id: randomSecret(18),
      expiresAt: this.#now() + CODE_TTL_MS,
    };
    this.#requests.set(request.id, request);
    return { ...request };
  }

  /** A pending request, or null when unknown or expired. */
  request(id: string): AuthorizationRequest | null {
    const request = this.#requests.get(id);
    return request && request.expiresAt > this.#now() ? { ...request } : null;
  }

  /** Ends a pending request once it produced a code or was cancelled. */
  completeRequest(id: string): void {
    this.#requests.delete(id);
  }

  issueCode(input: CodeInput, impersonator: Impersonator | null): AuthorizationCode {
    this.#prune();
    const now = this.#now();
    const code: AuthorizationCode = {
      ...input,
      authTime: input.authTime ?? now,
      impersonator,
      code: randomSecret(24),
      expiresAt: now + CODE_TTL_MS,
      used: false,
    };
    this.#codes.set(code.code, code);
    return { ...code };
  }

  /** Marks a code used on every presentation, so a code can never be tried twice. */
  redeem(code: string): { ok: true; value: AuthorizationCode } | { ok: false; reason: RedeemRefusal } {
    const found = this.#codes.get(code);
    if (!found) return { ok: false, reason: "unknown" };
    if (found.used) return { ok: false, reason: "used" };
    found.used = true;
    if (found.expiresAt <= this.#now()) return { ok: false, reason: "expired" };
    return { ok: true, value: { ...found } };
  }

  clear(): void {
    this.#requests.clear();
    this.#codes.clear();
  }

  /** Drops expired requests and codes so a long-running server does not grow without bound. */
  #prune(): void {
    const now = this.#now();
    for (const [id, r] of this.#requests) if (r.expiresAt <= now) this.#requests.delete(id);
    for (const [code, c] of this.#codes) if (c.expiresAt <= now) this.#codes.delete(code);
  }
}
