/**
 * @module
 * Session lifecycle, the worker's door (contract: `client-sdk/protocol/lifecycle.ts`): create a
 * session (steps in `lifecycle/new-session.ts`), resolve it from a cookie and slide its idle expiry,
 * end and revoke it; the hooks observe (`lifecycle/hooks.ts`). With device binding on, a bound session
 * also needs its fresh bound cookie (`device-binding.ts`). Resolving never throws on any cookie;
 * only a failing store surfaces, as a 503 `AuthError` (fail closed). Never logs a session id.
 */
import type { ResolveOptions } from "../../../client-sdk/protocol/auth-service";
import type { SessionMirror } from "../../../client-sdk/protocol/lifecycle";
import type { RevocationActor } from "../../../client-sdk/protocol/security-record";
import type { RevocationResult, SessionInfo } from "../../../durable-objects/user-sessions";
import type { HmacSigner } from "../crypto";
import { AuthError } from "../errors";
import type { Impersonator } from "../identity/identity-client";
import { isSessionId } from "../ids";
import type { LocationSource } from "../location";
import type { AppUser, IdentityUser } from "../types";
import type { ResolvedSessionConfig, SessionHooks } from "./config";
import type { DeviceBinding } from "./device-binding";
import type { KVSessionStore, SessionRecord } from "./kv-session-store";
import { HookRunner } from "./lifecycle/hooks";
import {
  assertMember,
  mirrorOf,
  newRecord,
  organizationsOf,
  registrationFailure,
  type SignInFacts,
} from "./lifecycle/new-session";
import type { OrganizationControls } from "./organization-controls";
import type { SecurityRecord, SessionMeta } from "./security-record";
import { type SessionObjects, USER_SESSIONS_UNBOUND } from "./session-objects";
import { bound, storeCall } from "./store-call";
import { issueSessionToken, sessionIdOf, sessionSetCookie } from "./token";
import type { UserDirectory } from "./user-directory";

export type { SignInFacts };

/** A resolved session: the public id, the user, and the stored record. */
export interface ResolvedSession {
  sessionId: string;
  user: AppUser;
  record: SessionRecord;
  /** When the person last actively authenticated (ms); sessions from before it was kept: their creation. */
  authenticatedAt: number;
  /** Set when an operator is signed in as this person. */
  impersonator: Impersonator | null;
}

/** What the lifecycle works with; the other doors are its neighbours, not its parts. */
export interface LifecycleParts {
  config: ResolvedSessionConfig;
  store: KVSessionStore;
  signer: HmacSigner;
  directory: UserDirectory;
  objects: SessionObjects | undefined;
  organizations: OrganizationControls;
  record: SecurityRecord;
  binding: DeviceBinding;
  hooks: SessionHooks;
}

/** How a resolve treats device binding: the public options (`deviceSkipped`) and the pending-binding door. */
export interface LifecycleResolveOptions extends ResolveOptions {
  /**
   * True for the two places a session that must bind but has not yet may be used: the registration
   * route (it is how it binds) and the page that says why. Everywhere else such a session is absent.
   */
  pendingBinding?: boolean;
}

/** The person acting when no one else is named: the session's own user. */
export const SELF: RevocationActor = { kind: "user" };
const RECENT_REFRESH_LIMIT = 10_000;

export class SessionLifecycle {
  readonly #parts: Omit<LifecycleParts, "hooks">;
  readonly #hooks: HookRunner;
  /** Sessions this isolate slid recently: avoids two writes to one key in the same second. */
  readonly #recentRefresh = new Map<string, number>();

  constructor(parts: LifecycleParts) {
    this.#parts = parts;
    this.#hooks = new HookRunner(parts.hooks, parts.config.hookTimeoutMs);
  }

  /**
   * The session of a Cookie header; a revoked one's use is told to its timeline, one an organization
   * ended is refused. `options.deviceSkipped` is the request's `Secure-Session-Skipped`, if any: it
   * changes only what a bound session without its fresh proof is recorded as, never the answer.
   */
  async resolve(
    cookieHeader: string | null | undefined,
    seen: SessionMeta = {},
    options: LifecycleResolveOptions = {},
  ): Promise<ResolvedSession | null> {
    const { config, store, organizations } = this.#parts;
    const sessionId = await sessionIdOf(this.#parts.signer, config.cookieName, cookieHeader);
    if (!sessionId) return null;
    const found = await storeCall(() => store.lookup(sessionId));
    if (found && "revokedFrom" in found) {
      await this.#parts.record.reportRefused(found.revokedFrom, found.revokedAt, sessionId, seen);
      return null;
    }
    const record = found?.record;
    if (!record || record.id !== sessionId) return null;
    const now = config.clock();
    if (now >= record.idleExpiresAt || now >= record.absoluteExpiresAt) return null;
    // Synchronous when every epoch is cached (the common case): no await, no round trip.
    const refused = organizations.refuses(record);
    if (refused === true || (refused !== false && (await refused))) return null;
    if (!(await this.#admitted(record, cookieHeader, seen, options))) return null;
    if (now - record.lastSeenAt >= config.refreshInterval * 1000) await this.#slide(record, now);
    return {
      sessionId,
      user: toAppUser(record),
      record,
      authenticatedAt: record.authenticatedAt ?? record.createdAt,
      impersonator: record.impersonator ?? null,
    };
  }

  /** Creates a session with a fresh id (never reusing one: no fixation); the response carries its cookie. */
  async create(
    user: IdentityUser,
    organizationId: string | undefined,
    meta: SessionMeta,
    signIn: SignInFacts,
  ): Promise<{ sessionId: string; response: Response; record: SessionRecord; newDevice: boolean }> {
    const { config, objects } = this.#parts;
    assertMember(user, organizationId);
    const now = config.clock();
    const { cookieValue, sessionId } = await issueSessionToken(this.#parts.signer, config.random);
    const record = newRecord(config, sessionId, now, user, organizationId, meta, signIn);
    const { policy, binding } = await this.#parts.organizations.signInPolicy(
      organizationsOf(record),
      record.memberships,
    );
    // A role that must bind a device: the session counts once its browser bound a key (`#admitted`).
    if (binding && this.#parts.binding.enabled) record.bindingRequired = binding;
    await this.#save(record);
    const newDevice =
      objects !== undefined &&
      (await this.#register(objects, user, record, mirrorOf(record, meta, signIn, policy, config.timeline)));
    const response = new Response(null, { status: 204 });
    response.headers.append("Set-Cookie", sessionSetCookie(config, cookieValue));
    const tenant = record.organizationId ? { organizationId: record.organizationId } : {};
    await this.#hooks.notify("onSignIn", { userId: user.id, sessionId, ...tenant });
    return { sessionId, response, record, newDevice };
  }

  /** Ends the session (an unknown id is a no-op); the response clears the cookie. */
  async destroy(sessionId: string): Promise<Response> {
    if (isSessionId(sessionId)) {
      this.#recentRefresh.delete(sessionId);
      await this.#end(sessionId);
    }
    const response = new Response(null, { status: 204 });
    response.headers.append("Set-Cookie", sessionSetCookie(this.#parts.config, "", 0));
    return response;
  }

  list(userId: string): Promise<SessionInfo[]> {
    return this.#objects().list(userId);
  }

  /** Revokes one session found through its KV record; null when no such session is known here. */
  async revoke(sessionId: string, actor: RevocationActor): Promise<RevocationResult | null> {
    if (!isSessionId(sessionId)) return null;
    const record = await storeCall(() => this.#parts.store.get(sessionId));
    if (!record) return null;
    this.#recentRefresh.delete(sessionId);
    const result = await this.#objects().revoke(record.userId, sessionId, "revoked", actor);
    await this.#revoked(record.userId, "session", result, sessionId);
    return result;
  }

  async revokeUser(userId: string, actor: RevocationActor): Promise<RevocationResult> {
    const result = await this.#objects().revokeAll(userId, actor);
    await this.#revoked(userId, "all", result);
    return result;
  }

  async revokeOthers(userId: string, keepSessionId: string, actor: RevocationActor): Promise<RevocationResult> {
    const result = await this.#objects().revokeOthers(userId, keepSessionId, actor);
    await this.#revoked(userId, "others", result);
    return result;
  }

  /** Revokes one session of this user in their object: ended by the reason given, or (`revoked`) only while active. */
  async revokeOf(
    userId: string,
    sessionId: string,
    reason: "logout" | "revoked" | "replaced" | "replaced_by_other_user",
    actor: RevocationActor,
  ): Promise<RevocationResult | null> {
    const objects = this.#objects();
    this.#recentRefresh.delete(sessionId);
    if (reason !== "revoked") {
      const result = await objects.revoke(userId, sessionId, reason, actor);
      await this.#hooks.notify("onSignOut", { userId, sessionId });
      return result;
    }
    const result = await objects.revokeActive(userId, sessionId, actor);
    if (result) await this.#revoked(userId, "session", result, sessionId);
    return result;
  }

  /**
   * Strict revocation asks the session's object whether it is active. With device binding on, the
   * same one call also says whether a key is bound (and heals a KV record that lost its `bound`
   * flag to a racing write); in eventual mode the KV record's `bound` flag says it, with no object
   * call. A bound session needs its fresh bound cookie (`DeviceBinding.isFresh`, which the signed
   * expiry makes checkable anywhere); one whose role requires binding and that has not bound counts
   * as not signed in, except where `pendingBinding` allows it. Never an error for any cookie.
   */
  async #admitted(
    record: SessionRecord,
    cookieHeader: string | null | undefined,
    seen: SessionMeta,
    options: LifecycleResolveOptions,
  ): Promise<boolean> {
    const { config, objects, binding } = this.#parts;
    const strict = config.revocation === "strict";
    if (!binding.enabled) return !strict || objects!.isActive(record.userId, record.id);
    let bound = record.bound === true;
    if (strict) {
      const state = await objects!.bindingState(record.userId, record.id);
      if (!state.active) return false;
      if (state.bound && !bound) record.bound = true;
      bound = state.bound;
    }
    const session = { sessionId: record.id, userId: record.userId };
    if (bound) return binding.isFresh(cookieHeader, session, seen, options.deviceSkipped ?? null);
    return record.bindingRequired === undefined || options.pendingBinding === true;
  }

  /** Writes the new session's KV record; a failure is a 503. */
  async #save(record: SessionRecord): Promise<void> {
    try {
      await this.#parts.store.put(record);
    } catch (cause) {
      throw new AuthError("session_store_unavailable", { status: 503, message: "Could not save the session", cause });
    }
  }

  /**
   * Mirrors the new session into its user's object (which enforces the policy), beside the best-effort
   * member index and directory entry. Refused or failed: the KV record goes again and the refusal is thrown.
   */
  async #register(
    objects: SessionObjects,
    user: IdentityUser,
    record: SessionRecord,
    mirror: SessionMirror,
  ): Promise<boolean> {
    const [result] = await Promise.all([
      objects.register(user.id, mirror).catch((cause: unknown) => cause as Error),
      this.#parts.organizations.addMember(
        user.id,
        record.memberships.map((m) => m.organizationId),
      ),
      // The console finds people by email (best effort: a miss only means a search by id).
      this.#parts.directory.note(user.id, user.email).catch((cause: unknown) => {
        console.error("gatehouse: could not note the user in the directory", cause instanceof Error ? cause.name : "");
      }),
    ]);
    if (result instanceof Error || !result.registered) {
      await this.#parts.store.delete(record.id).catch(() => {});
      throw registrationFailure(result);
    }
    return result.newDevice === true;
  }

  async #slide(record: SessionRecord, now: number): Promise<void> {
    const { config, store, objects } = this.#parts;
    const last = this.#recentRefresh.get(record.id);
    if (last !== undefined && now - last < config.refreshInterval * 1000) return;
    if (this.#recentRefresh.size >= RECENT_REFRESH_LIMIT) this.#recentRefresh.clear();
    this.#recentRefresh.set(record.id, now);
    record.lastSeenAt = now;
    record.idleExpiresAt = Math.min(now + config.idleTimeout * 1000, record.absoluteExpiresAt);
    try {
      await store.put(record);
      // After the write, not beside it: if the session was revoked meanwhile, the object
      // sees the tombstone and deletes the record this write may have brought back.
      if (objects) await objects.touch(record.userId, record.id, now, record.idleExpiresAt);
    } catch (err) {
      // Sliding is best effort: a failed write (e.g. KV's 1 write/s/key limit) must not fail the request.
      console.warn("gatehouse: session refresh write failed", err instanceof Error ? err.message : err);
    }
  }

  async #end(sessionId: string): Promise<void> {
    const { store, objects } = this.#parts;
    const record = await storeCall(() => store.get(sessionId));
    if (record && objects) await objects.revoke(record.userId, sessionId, "logout", SELF);
    else await storeCall(() => store.delete(sessionId));
    if (record) await this.#hooks.notify("onSignOut", { userId: record.userId, sessionId });
  }

  #revoked(
    userId: string,
    scope: "session" | "others" | "all",
    result: RevocationResult,
    sessionId?: string,
  ): Promise<void> {
    return this.#hooks.notify("onRevoke", {
      userId,
      scope,
      revoked: result.revoked,
      ...(sessionId ? { sessionId } : {}),
    });
  }

  #objects(): SessionObjects {
    return bound(this.#parts.objects, USER_SESSIONS_UNBOUND);
  }
}

/** What a request shows of its sender: the edge-set address, the User-Agent, and its location. */
export function requestMeta(request: Request, location: LocationSource): SessionMeta {
  const ip = request.headers.get("CF-Connecting-IP");
  const userAgent = request.headers.get("User-Agent");
  const place = location(request);
  return { ...(ip ? { ip } : {}), ...(userAgent ? { userAgent } : {}), ...(place ? { location: place } : {}) };
}

export function toAppUser(record: SessionRecord): AppUser {
  return {
    id: record.userId,
    email: record.email,
    firstName: record.firstName,
    lastName: record.lastName,
    ...(record.organizationId ? { organizationId: record.organizationId } : {}),
    memberships: record.memberships.map((m) => ({ ...m })),
  };
}
