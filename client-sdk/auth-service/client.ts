/**
 * @module
 * `AuthServiceClient`: a typed client over a service binding to the auth
 * worker's `AuthService` entrypoint, so a consuming worker resolves users and
 * revokes sessions without the session secret. Every failure of a call
 * surfaces as an `AuthServiceError`; it never returns a guessed answer, and
 * it never imports the auth worker's runtime code (types only).
 */

import { Coalescer } from "../core/coalesce";
import { withDeadline } from "../core/deadline";
import { perBindingScope } from "../core/isolate-scope";
import { releaseRpcResult } from "../core/rpc";
import type { RateLimitDecision } from "../rate-limit";
import { AuthServiceError, toAuthServiceError } from "./errors";
import {
  isAccessTokenResult,
  isAppUser,
  isDeviceList,
  isLiveTicket,
  isPolicyAnswer,
  isRateDecision,
  isRateDecisionList,
  isReceipt,
  isRevocation,
  isSession,
  isSessionList,
  isTimelinePage,
} from "./shape";
import type {
  AccessTokenResult,
  AppUser,
  AuthService,
  AuthServiceBinding,
  AuthServiceSession,
  KnownDevice,
  LiveTicket,
  OrganizationPolicy,
  RevocationActor,
  RevocationReceipt,
  RevocationResult,
  ServiceSessionResolver,
  SessionInfo,
  SessionPolicy,
  TimelinePage,
} from "./types";

export interface AuthServiceClientOptions {
  /** A call that has not answered after this many milliseconds fails with `auth_service_timeout`. Default 5000. */
  timeoutMs?: number;
}

/** A Request (its Cookie header is sent), a raw Cookie header, or nothing. */
export type CookieSource = Request | string | null | undefined;

export const DEFAULT_AUTH_SERVICE_TIMEOUT_MS = 5_000;

/** The entrypoint methods this client calls; a method added to `AuthService` is one more entry. */
type RemoteMethod =
  | "resolveUser"
  | "resolveSession"
  | "listSessions"
  | "revokeSession"
  | "revokeUser"
  | "timeline"
  | "devices"
  | "receipt"
  | "endOrganizationSessions"
  | "liftOrganizationSessions"
  | "organizationPolicy"
  | "setOrganizationPolicy"
  | "liveTicket"
  | "accessToken"
  | "checkRateLimit"
  | "checkRateLimitBatch";
type Remote = Pick<AuthService, RemoteMethod>;

/**
 * @example
 * ```ts
 * // wrangler.toml: [[services]] binding = "AUTH", service = "gatehouse-auth", entrypoint = "AuthService"
 * const auth = new AuthServiceClient(env.AUTH);
 * const user = await auth.resolveUser(request); // AppUser | null
 * await auth.revokeUser(user.id);
 * ```
 */
export class AuthServiceClient implements ServiceSessionResolver {
  readonly #binding: AuthServiceBinding;
  readonly #timeoutMs: number;

  constructor(binding: AuthServiceBinding, options: AuthServiceClientOptions = {}) {
    if (typeof binding !== "object" || binding === null) {
      throw new AuthServiceError("auth_service_not_bound", {
        message:
          "AuthServiceClient needs the service binding to the auth worker's AuthService entrypoint (e.g. env.AUTH)",
      });
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_AUTH_SERVICE_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new RangeError("timeoutMs must be a positive number");
    this.#binding = binding;
    this.#timeoutMs = timeoutMs;
  }

  /** The underlying service binding. */
  get raw(): AuthServiceBinding {
    return this.#binding;
  }

  /**
   * The user of the session carried by this request or Cookie header, or null. No cookie: null
   * without a call. A Request's `Secure-Session-Skipped` goes along (device binding: see `ResolveOptions`).
   */
  async resolveUser(source: CookieSource): Promise<AppUser | null> {
    const cookie = cookieHeaderOf(source, "resolveUser");
    return cookie ? this.#checked("resolveUser", resolveArguments(cookie, source), orNull(isAppUser)) : null;
  }

  /** The session (public id, user, expiry in ms) carried by this request or Cookie header, or null. */
  async resolveSession(source: CookieSource): Promise<AuthServiceSession | null> {
    const cookie = cookieHeaderOf(source, "resolveSession");
    return cookie ? this.#checked("resolveSession", resolveArguments(cookie, source), orNull(isSession)) : null;
  }

  /**
   * A single-use ticket for the live channel of this request's session (a page of this app joins
   * it from the browser: see `ServiceAuthMiddleware`'s `live` option), or null without a session.
   */
  async liveTicket(source: CookieSource): Promise<LiveTicket | null> {
    const cookie = cookieHeaderOf(source, "liveTicket");
    return cookie ? this.#checked("liveTicket", [cookie], orNull(isLiveTicket)) : null;
  }

  /**
   * A fresh access token of the identity provider for this request's session (to call its APIs, or
   * yours that trust it): refreshed one at a time in the user's session object, so many tabs and
   * workers asking at once never spend a refresh token twice. `{ ok: false, reason }` without one.
   */
  async getAccessToken(source: CookieSource): Promise<AccessTokenResult> {
    const cookie = cookieHeaderOf(source, "accessToken");
    if (!cookie) return { ok: false, reason: "unauthenticated" };
    return this.#checked("accessToken", [cookie], isAccessTokenResult);
  }

  /** Every live session of a user. */
  async listSessions(userId: string): Promise<SessionInfo[]> {
    return this.#checked("listSessions", [idArgument(userId, "userId", "listSessions")], isSessionList);
  }

  /**
   * Revokes one session by its public id; null when no live session has that id. `actor` is who the
   * user's timeline names (default: the user); the result carries the revocation's `receiptId`.
   */
  async revokeSession(sessionId: string, actor?: RevocationActor): Promise<RevocationResult | null> {
    const id = idArgument(sessionId, "sessionId", "revokeSession");
    return this.#checked("revokeSession", actor ? [id, actor] : [id], orNull(isRevocation));
  }

  /** Revokes every session of a user and closes every open tab (actor default: `{ kind: "admin", label: "service" }`). */
  async revokeUser(userId: string, actor?: RevocationActor): Promise<RevocationResult> {
    const id = idArgument(userId, "userId", "revokeUser");
    return this.#checked("revokeUser", actor ? [id, actor] : [id], isRevocation);
  }

  /** One page of the user's security timeline, newest first; pass `nextCursor` back for older events. */
  async timeline(userId: string, options: { cursor?: string | null; limit?: number } = {}): Promise<TimelinePage> {
    return this.#checked("timeline", [idArgument(userId, "userId", "timeline"), options], isTimelinePage);
  }

  /** The devices and places the user signed in from within the retention window. */
  async devices(userId: string): Promise<KnownDevice[]> {
    return this.#checked("devices", [idArgument(userId, "userId", "devices")], isDeviceList);
  }

  /** A revocation receipt by id (`RevocationResult.receiptId`), or null. */
  async receipt(receiptId: string): Promise<RevocationReceipt | null> {
    return this.#checked("receipt", [idArgument(receiptId, "receiptId", "receipt")], orNull(isReceipt));
  }

  /**
   * The organization's kill switch: ends every session of every member and refuses sessions issued
   * before now until it is lifted. `label` names the caller on every member's timeline.
   */
  async endOrganizationSessions(organizationId: string, label?: string): Promise<RevocationReceipt> {
    const id = idArgument(organizationId, "organizationId", "endOrganizationSessions");
    return this.#checked("endOrganizationSessions", label === undefined ? [id] : [id, label], isReceipt);
  }

  /** Lifts the organization's kill switch for new sessions; ended sessions stay ended. */
  async liftOrganizationSessions(organizationId: string): Promise<void> {
    const id = idArgument(organizationId, "organizationId", "liftOrganizationSessions");
    await this.#checked("liftOrganizationSessions", [id], isUndefined);
  }

  /** The session policy sign-ins into the organization get, and where it comes from. */
  async organizationPolicy(organizationId: string): Promise<OrganizationPolicy> {
    const id = idArgument(organizationId, "organizationId", "organizationPolicy");
    return this.#checked("organizationPolicy", [id], isPolicyAnswer);
  }

  /** Sets the operator's session policy of the organization; null clears it (the configured one applies). */
  async setOrganizationPolicy(organizationId: string, policy: SessionPolicy | null): Promise<void> {
    const id = idArgument(organizationId, "organizationId", "setOrganizationPolicy");
    await this.#checked("setOrganizationPolicy", [id, policy], isUndefined);
  }

  /**
   * One fixed-window check on the auth worker's shared `RateLimiterDO`
   * (`limit` requests per `windowSeconds` for `key`), for workers without a
   * limiter binding of their own. Wrap it in a `RateLimiter` subclass for headers and 429s.
   * Concurrent checks of one key from this isolate travel as one call (`checkRateLimitBatch`),
   * decided in arrival order, so they cost one round trip and stay exact.
   */
  async checkRateLimit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    if (typeof key !== "string" || key.length === 0 || key.length > 512) {
      throw new AuthServiceError("invalid_argument", {
        method: "checkRateLimit",
        message: "key must be a string of 1-512 characters",
      });
    }
    const lane = JSON.stringify([key, limit, windowSeconds]);
    // A call in flight longer than this client's timeout has a sender whose request went away.
    return rateCheckCoalescer(this.#binding, "checkRateLimit").run(
      lane,
      async (count) =>
        count === 1
          ? [await this.#checked("checkRateLimit", [key, limit, windowSeconds], isRateDecision)]
          : this.#checked("checkRateLimitBatch", [key, limit, windowSeconds, count], isRateDecisionList(count)),
      this.#timeoutMs,
    );
  }

  /** One call whose answer must have `shape`; any other answer is `auth_service_bad_response`. */
  async #checked<M extends RemoteMethod, T>(
    method: M,
    args: Parameters<Remote[M]>,
    shape: (value: unknown) => value is T,
  ): Promise<T> {
    const answer = await this.#call(method, args);
    if (!shape(answer)) throw new AuthServiceError("auth_service_bad_response", { method });
    return answer;
  }

  /** One RPC call with a deadline; whatever it throws becomes an `AuthServiceError`. Answers are checked by callers. */
  async #call<M extends RemoteMethod>(method: M, args: Parameters<Remote[M]>): Promise<unknown> {
    const remote = this.#binding as unknown as Record<M, ((...a: Parameters<Remote[M]>) => unknown) | undefined>;
    if (typeof remote[method] !== "function") {
      throw new AuthServiceError("auth_service_not_bound", {
        method,
        message: `The binding given to AuthServiceClient has no ${method} method; bind entrypoint "AuthService"`,
      });
    }
    try {
      // Released at once: the answers are plain data, and an unreleased RPC answer keeps the call's session open.
      return releaseRpcResult(
        await withDeadline(
          Promise.resolve().then(() => remote[method]!(...args)),
          this.#timeoutMs,
          () => new AuthServiceError("auth_service_timeout", { method }),
        ),
      );
    } catch (err) {
      throw toAuthServiceError(method, err);
    }
  }
}

/** The isolate's coalescer of rate checks, per binding object; at most 1,000 per call (the default), as the entrypoint takes. */
const rateCheckCoalescer = /* @__PURE__ */ perBindingScope(() => new Coalescer<RateLimitDecision>());

/** The Cookie header, and a Request's `Secure-Session-Skipped` when it has one (else the one argument, as before). */
function resolveArguments(cookie: string, source: CookieSource): [string] | [string, { deviceSkipped: string }] {
  const skipped = source instanceof Request ? source.headers.get("Secure-Session-Skipped") : null;
  return skipped ? [cookie, { deviceSkipped: skipped }] : [cookie];
}

function cookieHeaderOf(source: CookieSource, method: string): string | null {
  if (source instanceof Request) return source.headers.get("Cookie");
  if (source === null || source === undefined) return null;
  if (typeof source !== "string") {
    throw new AuthServiceError("invalid_argument", {
      method,
      message: "Pass a Request, a Cookie header string or null",
    });
  }
  return source;
}

function idArgument(value: unknown, name: string, method: string): string {
  if (typeof value !== "string" || value.length === 0) {
    throw new AuthServiceError("invalid_argument", { method, message: `${name} must be a non-empty string` });
  }
  return value;
}

function isUndefined(value: unknown): value is undefined {
  return value === undefined || value === null;
}

/** `shape`, or null. */
function orNull<T>(shape: (value: unknown) => value is T): (value: unknown) => value is T | null {
  return (value): value is T | null => value === null || shape(value);
}
