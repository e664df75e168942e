/**
 * @module
 * Device binding (issue 30, DBSC), the worker's door: the registration header a sign-in sends, the
 * two DBSC routes' answers (register a key, refresh the bound cookie), and the check resolve makes
 * (a bound session needs its fresh bound cookie). Off unless the deployment chose `deviceBinding`;
 * the object keeps keys and challenges (`durable-objects/user-sessions/device-binding.ts`), the pure
 * pieces live in `device-binding/`. It never fails a sign-in, and never stores a key it did not verify.
 */
import { jsonError } from "../../../../client-sdk/core/errors";
import { DBSC_HEADERS, type SessionConfig } from "../../../../client-sdk/protocol/device-binding";
import { parseCookie } from "../../cookies";
import type { HmacSigner } from "../../crypto";
import { isSessionId } from "../../ids";
import type { ResolvedSessionConfig } from "../config";
import type { KVSessionStore, SessionRecord } from "../kv-session-store";
import type { BindingRequirement } from "../policy";
import type { SecurityRecord, SessionMeta } from "../security-record";
import { type SessionObjects, USER_SESSIONS_UNBOUND } from "../session-objects";
import { bound, storeCall } from "../store-call";
import { sessionIdOf } from "../token";
import { challengeHeader, readSessionId, readSessionResponse, registrationHeader } from "./headers";
import { type ProofRefusal, verifyProof } from "./proof";
import { refreshFailureOf, skippedFor } from "./reports";
import { type BindingScope, bindingScope } from "./scope";
import { type BoundCookieSpec, boundCookieAttributes, buildSessionConfig, endSessionConfig } from "./session-config";
import { BOUND_COOKIE_TTL_MS, BoundCookie } from "./tokens";

/** The two routes the auth worker answers when device binding is on. */
export const DBSC_PATHS = { register: "/auth/dbsc/register", refresh: "/auth/dbsc/refresh" } as const;

/**
 * How long after sign-in a session whose role must bind is still offered a registration challenge
 * (the page `/auth/device-binding`). Past it the session cookie alone could otherwise enrol any key:
 * a copy of a pending session's cookie (a browser that cannot bind keeps one for the session's whole
 * life) would let its holder bind their own key and turn it into a fully admitted session.
 */
export const REGISTRATION_WINDOW_MS = 5 * 60 * 1000;

/** A signed-in session as the door needs it. */
export interface BindingSession {
  sessionId: string;
  userId: string;
  /** When the session was created (ms): how long its browser has had to bind. */
  createdAt?: number;
  /** Why the session must bind (its record's `bindingRequired`), when it must. */
  requirement?: BindingRequirement | null;
  /** Whether a key is bound (as the resolve found it: the object's word in strict mode, the KV flag in eventual). */
  bound?: boolean;
}

/** Where a browser's session stands with a role that must bind (the page `/auth/device-binding`). */
export type BindingStatus =
  | { state: "signed_out" }
  | { state: "ready" }
  | {
      state: "pending";
      requirement: BindingRequirement;
      createdAt: number;
      /** A fresh `Secure-Session-Registration` for the page's answer; null when none could be issued. */
      registration: string | null;
    };

export interface DeviceBindingParts {
  config: ResolvedSessionConfig;
  store: KVSessionStore;
  signer: HmacSigner;
  objects: SessionObjects | undefined;
  record: SecurityRecord;
  /**
   * The session of a Cookie header, resolved as every request's (so a bound one needs its bound
   * cookie); with `pendingBinding`, also one whose role must bind and has not yet.
   */
  resolve(cookieHeader: string | null, pendingBinding: boolean): Promise<BindingSession | null>;
  /** What a request shows of its sender, for the timeline (`requestMeta`). */
  meta(request: Request): SessionMeta;
}

const NO_STORE = { "Cache-Control": "no-store" } as const;

export class DeviceBinding {
  readonly #parts: DeviceBindingParts;
  readonly #cookie: BoundCookie;
  readonly #spec: BoundCookieSpec;
  readonly #scope: BindingScope;

  constructor(parts: DeviceBindingParts) {
    this.#parts = parts;
    const { config } = parts;
    this.#cookie = new BoundCookie(parts.signer, { now: config.clock });
    // Same scope as the session cookie, so the browser sends both wherever the session counts.
    this.#spec = {
      name: `${config.cookieName}_dbsc`,
      sameSite: config.sameSite,
      ...(config.domain ? { domain: config.domain } : {}),
    };
    // And the DBSC session covers the hosts that cookie reaches: the whole site when it has a Domain.
    this.#scope = bindingScope(config.deviceBindingSite);
  }

  /** On when the deployment chose a mode other than `"off"` (config.ts makes sure the objects are bound). */
  get enabled(): boolean {
    return this.#parts.config.deviceBinding !== "off" && this.#parts.objects !== undefined;
  }

  /** `Secure-Session-Registration` for a new session (with a stored challenge); null when off or the session is gone. */
  async registrationHeader(session: BindingSession): Promise<string | null> {
    if (!this.enabled) return null;
    const issued = await this.#objects().bindingChallenge(session.userId, session.sessionId, "registration");
    return issued ? registrationHeader({ path: DBSC_PATHS.register, challenge: issued.challenge }) : null;
  }

  /**
   * Where the browser's session stands (the page `/auth/device-binding`): signed out, ready (it
   * resolves as usual: bound, or not required to bind), or pending a binding its role requires,
   * with a fresh registration header so a browser that missed the sign-in's can still bind — only
   * within `REGISTRATION_WINDOW_MS` of the sign-in: later, whoever holds the cookie is no longer
   * presumed to be the browser that signed in, and the person signs in again to bind.
   */
  async status(cookieHeader: string | null): Promise<BindingStatus> {
    // One resolve that lets a pending session through: bound (or not required) is ready as usual.
    const session = await this.#parts.resolve(cookieHeader, true);
    if (!session) return { state: "signed_out" };
    if (!session.requirement || session.bound) return { state: "ready" };
    const open = this.#parts.config.clock() - (session.createdAt ?? 0) < REGISTRATION_WINDOW_MS;
    const registration = open ? await this.registrationHeader(session).catch(() => null) : null;
    return { state: "pending", requirement: session.requirement, createdAt: session.createdAt ?? 0, registration };
  }

  /**
   * `POST /auth/dbsc/register`: the signed-in session's browser proves a new key. The proof's
   * signature is verified first (key from its header); only then does the object spend the challenge
   * and bind the key, in one call. Answers the session instructions and the first bound cookie.
   */
  async register(request: Request): Promise<Response> {
    const session = await this.#parts.resolve(request.headers.get("Cookie"), true);
    if (!session) return jsonError(401, "unauthenticated", "Sign in first", NO_STORE);
    const token = readSessionResponse(request.headers.get(DBSC_HEADERS.response));
    if (!token.ok) return jsonError(400, "invalid_proof", "No valid device proof", NO_STORE);
    // The challenge is spent by `bindDevice` below, in the same object call as the binding.
    const proof = await verifyProof(token.value, { acceptChallenge: () => true });
    if (!proof.ok) return jsonError(400, "invalid_proof", "No valid device proof", NO_STORE);
    const { jwk, alg, thumbprint, jti } = proof.value;
    const outcome = await this.#objects().bindDevice(session.userId, session.sessionId, jti, { jwk, alg, thumbprint });
    if (outcome === "inactive") return jsonError(401, "unauthenticated", "Sign in first", NO_STORE);
    if (outcome !== "bound") return jsonError(400, "invalid_proof", "No valid device proof", NO_STORE);
    await this.#flagBound(session.sessionId);
    return this.#instructions(session.sessionId);
  }

  /**
   * `POST /auth/dbsc/refresh` (no body): without a valid proof by the bound key, 403 with a fresh
   * `Secure-Session-Challenge` (Chrome signs it and retries) — minted only when the request carries
   * this session's own session cookie, so a stranger who knows the public id cannot evict the
   * owner's challenges (403 without one); with a proof, a new bound cookie. A session
   * that is unknown, revoked, expired or unbound ends (`continue: false`) with a 200: any other 4xx
   * would also end it in Chrome, but this says so on purpose. A proof that was sent with the
   * session's cookie and refused goes on the timeline (`session.device_refresh_failed`, throttled);
   * no proof at all is Chrome's first request of every refresh, and is not recorded.
   */
  async refresh(request: Request): Promise<Response> {
    const id = readSessionId(request.headers.get(DBSC_HEADERS.sessionId));
    if (!id.ok || !isSessionId(id.value)) return jsonError(400, "invalid_request", "No session identifier", NO_STORE);
    const sessionId = id.value;
    const record = await this.#liveRecord(sessionId);
    const key = record && (await this.#objects().boundKey(record.userId, sessionId));
    if (!record || !key) return Response.json(endSessionConfig(sessionId), { headers: NO_STORE });
    const { userId } = record;
    // The session's own browser sends its session cookie with the refresh. Anyone else who knows the
    // public id gets no challenge (it would evict the owner's live ones) and writes no timeline entry.
    const own =
      (await sessionIdOf(this.#parts.signer, this.#parts.config.cookieName, request.headers.get("Cookie"))) ===
      sessionId;
    const token = readSessionResponse(request.headers.get(DBSC_HEADERS.response));
    if (token.ok) {
      const proof = await verifyProof(token.value, {
        boundKey: key,
        acceptChallenge: (jti) => this.#objects().noteBindingRefresh(userId, sessionId, jti),
      });
      if (proof.ok) {
        // A KV record that lost its flag to a racing write gets it back here, within a cookie's lifetime.
        if (!record.bound) await this.#flagBound(sessionId, record);
        return this.#instructions(sessionId);
      }
      if (own) await this.#refreshFailed(request, userId, sessionId, proof.reason);
    } else if (token.reason === "malformed" && own) {
      await this.#refreshFailed(request, userId, sessionId, "malformed");
    }
    if (!own) return jsonError(403, "forbidden", "No device proof", NO_STORE);
    const issued = await this.#objects().bindingChallenge(userId, sessionId, "refresh");
    if (!issued) return Response.json(endSessionConfig(sessionId), { headers: NO_STORE });
    return new Response(null, {
      status: 403,
      headers: { ...NO_STORE, [DBSC_HEADERS.challenge]: challengeHeader(issued.challenge, sessionId) },
    });
  }

  /**
   * Resolve's check of a session the object says is bound: the request must carry a bound cookie
   * that verifies, has not expired and names this session. A miss is told to the user's timeline
   * (`session.refused`, throttled) and the session counts as absent: with reason
   * `device_refresh_skipped` when the request's `Secure-Session-Skipped` (`skippedHeader`) names this
   * session (its browser says why it has no fresh proof), else `device_proof_missing` (a copied cookie?).
   */
  async isFresh(
    cookieHeader: string | null | undefined,
    session: BindingSession,
    seen: SessionMeta,
    skippedHeader: string | null = null,
  ): Promise<boolean> {
    const value = parseCookie(cookieHeader ?? "")[this.#spec.name];
    const checked = await this.#cookie.verify(value);
    if (checked.ok && checked.sessionId === session.sessionId) return true;
    const { record } = this.#parts;
    const skipped = skippedFor(skippedHeader, session.sessionId);
    if (skipped === null) await record.reportDeviceProofMissing(session.userId, session.sessionId, seen);
    else await record.reportDeviceRefreshSkipped(session.userId, session.sessionId, seen, skipped);
    return false;
  }

  /** Tells the timeline a refresh proof of this session was refused (throttled; never fails the request). */
  #refreshFailed(request: Request, userId: string, sessionId: string, refusal: ProofRefusal): Promise<void> {
    const seen = this.#parts.meta(request);
    return this.#parts.record.reportDeviceRefreshFailed(userId, sessionId, seen, refreshFailureOf(refusal));
  }

  /** The KV record of a live (unexpired, unrevoked) session, or null. */
  async #liveRecord(sessionId: string): Promise<SessionRecord | null> {
    const found = await storeCall(() => this.#parts.store.lookup(sessionId));
    if (!found || !("record" in found) || found.record.id !== sessionId) return null;
    const now = this.#parts.config.clock();
    const { record } = found;
    return now < record.idleExpiresAt && now < record.absoluteExpiresAt ? record : null;
  }

  /**
   * Marks the session's KV record `bound` (never the key), so a resolve that reads KV alone (eventual
   * mode) asks for the bound cookie. Best effort: a failed write (KV's one write per second per key)
   * is healed by the next successful refresh, and strict mode asks the object anyway.
   */
  async #flagBound(sessionId: string, known?: SessionRecord): Promise<void> {
    try {
      // The refresh read the record a moment ago; registration reads it here (its resolve does not hand it on).
      const record = known ?? (await this.#liveRecord(sessionId));
      if (record && !record.bound) await this.#parts.store.put({ ...record, bound: true });
    } catch (err) {
      console.warn("gatehouse: could not flag a bound session in KV", err instanceof Error ? err.name : "");
    }
  }

  /**
   * 200: the session instructions and a fresh bound cookie (its Set-Cookie may carry Max-Age; the
   * instructions may not). `refresh_url` stays relative: the browser resolves it against the URL
   * that answered (spec `#algo-create-session`; Chrome `session.cc` `fetcher_url.Resolve`), which
   * is always this worker's register or refresh route, whatever origin the scope names.
   */
  async #instructions(sessionId: string): Promise<Response> {
    const config: SessionConfig = buildSessionConfig({
      sessionId,
      refreshUrl: DBSC_PATHS.refresh,
      ...this.#scope,
      cookies: [this.#spec],
    });
    const { value } = await this.#cookie.issue(sessionId);
    const setCookie = `${this.#spec.name}=${value}; ${boundCookieAttributes(this.#spec)}; Max-Age=${BOUND_COOKIE_TTL_MS / 1000}`;
    return Response.json(config, { headers: { ...NO_STORE, "Set-Cookie": setCookie } });
  }

  #objects(): SessionObjects {
    return bound(this.#parts.objects, USER_SESSIONS_UNBOUND);
  }
}
