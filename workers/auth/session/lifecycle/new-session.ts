/**
 * @module
 * Part of the session lifecycle (`../lifecycle.ts`): the pure steps of a sign-in. Who may sign in
 * to which organization, the KV record of the new session (lifetimes, the moment of
 * authentication, an impersonator), the mirror its user's object keeps, and what a refused
 * registration answers. No I/O here: the door runs the steps and does the writes.
 */
import type { RegisterResult, SessionMirror } from "../../../../client-sdk/protocol/lifecycle";
import type { SessionPolicy } from "../../../../client-sdk/protocol/policy";
import { AuthError } from "../../errors";
import type { Impersonator } from "../../identity/identity-client";
import type { IdentityUser } from "../../types";
import type { ResolvedSessionConfig } from "../config";
import type { SessionRecord } from "../kv-session-store";
import { policyRefusal } from "../policy";
import { tokensOf } from "../provider-access";
import type { SessionMeta } from "../security-record";
import { describeUserAgent, deviceClass } from "../user-agent";

/** What the sign-in itself told us, besides who: the provider's tokens, when the person authenticated, an impersonator. */
export interface SignInFacts {
  /** Kept in the user's session object only (never in KV or a cookie): `getAccessToken` refreshes with them. */
  tokens?: { accessToken?: string; refreshToken?: string };
  /** When the person actively authenticated (ms, the access token's `auth_time`). Default: now. */
  authenticatedAt?: number;
  /** An operator signed in as this person: the session says so everywhere and ends after `impersonationTimeout`. */
  impersonator?: Impersonator;
}

/** The tenant of a session is never taken on trust: it must be one of the user's memberships (else 403). */
export function assertMember(user: IdentityUser, organizationId: string | undefined): void {
  if (organizationId !== undefined && !user.memberships.some((m) => m.organizationId === organizationId)) {
    throw new AuthError("organization_not_allowed", {
      status: 403,
      message: "You are not a member of the organization this sign-in asked for.",
    });
  }
}

/** The KV record of a session created `now` under the fresh `sessionId`. */
export function newRecord(
  config: ResolvedSessionConfig,
  sessionId: string,
  now: number,
  user: IdentityUser,
  organizationId: string | undefined,
  meta: SessionMeta,
  signIn: SignInFacts,
): SessionRecord {
  // An operator's session as someone else is short-lived whatever the usual lifetime.
  const lifetime = signIn.impersonator
    ? Math.min(config.absoluteTimeout, config.impersonationTimeout)
    : config.absoluteTimeout;
  const absoluteExpiresAt = now + lifetime * 1000;
  return {
    v: 1,
    id: sessionId,
    userId: user.id,
    email: user.email,
    firstName: user.firstName ?? "",
    lastName: user.lastName ?? "",
    memberships: user.memberships.map((m) => ({
      organizationId: m.organizationId,
      organizationSlug: m.organizationSlug,
      role: m.role,
    })),
    ...(organizationId ? { organizationId } : {}),
    ...(user.providerSessionId ? { providerSessionId: user.providerSessionId } : {}),
    createdAt: now,
    lastSeenAt: now,
    idleExpiresAt: Math.min(now + config.idleTimeout * 1000, absoluteExpiresAt),
    absoluteExpiresAt,
    ...(meta.userAgent ? { userAgent: meta.userAgent.slice(0, 256) } : {}),
    ...(meta.ip ? { ip: meta.ip.slice(0, 64) } : {}),
    authenticatedAt: authenticatedAt(signIn, now),
    ...(signIn.impersonator ? { impersonator: impersonatorOf(signIn.impersonator) } : {}),
  };
}

/** The organizations whose policy applies to the session: its tenant and every membership. */
export function organizationsOf(record: SessionRecord): string[] {
  return [
    ...new Set([
      ...(record.organizationId ? [record.organizationId] : []),
      ...record.memberships.map((m) => m.organizationId),
    ]),
  ];
}

/** What the user's object keeps of the session, with the policy it enforces at registration. */
export function mirrorOf(
  record: SessionRecord,
  meta: SessionMeta,
  signIn: SignInFacts,
  policy: SessionPolicy,
  timeline: boolean,
): SessionMirror {
  return {
    id: record.id,
    createdAt: record.createdAt,
    lastSeenAt: record.lastSeenAt,
    expiresAt: record.idleExpiresAt,
    absoluteExpiresAt: record.absoluteExpiresAt,
    ...(record.organizationId ? { organizationId: record.organizationId } : {}),
    memberOf: record.memberships.map((m) => m.organizationId),
    ...(record.userAgent ? { userAgent: record.userAgent } : {}),
    ...(record.ip ? { ip: record.ip } : {}),
    ...(record.providerSessionId ? { providerSessionId: record.providerSessionId } : {}),
    device: describeUserAgent(record.userAgent),
    deviceClass: deviceClass(record.userAgent),
    ...(meta.location ? { location: meta.location } : {}),
    // Always whole: the object reads every field it enforces (the default imposes nothing).
    policy,
    ...(timeline ? {} : { record: false }),
    ...(signIn.tokens?.refreshToken || signIn.tokens?.accessToken ? { tokens: tokensOf(signIn.tokens) } : {}),
    ...(record.impersonator ? { impersonator: record.impersonator } : {}),
  };
}

/** What a registration that failed (an error) or was refused answers: the policy's refusal, else 503. */
export function registrationFailure(result: RegisterResult | Error): AuthError {
  const refusal = result instanceof Error ? null : policyRefusal(result.refusedBecause);
  if (refusal) return refusal;
  const cause = result instanceof Error ? result : new Error("session id was revoked before it was registered");
  return new AuthError("session_store_unavailable", { status: 503, message: "Could not save the session", cause });
}

/** A caller's own sign-in (library mode) is now; the callback always passes the provider's word, never later than now. */
function authenticatedAt(signIn: SignInFacts, now: number): number {
  return typeof signIn.authenticatedAt === "number" && Number.isFinite(signIn.authenticatedAt)
    ? Math.max(0, Math.min(signIn.authenticatedAt, now))
    : now;
}

/** The impersonator as a record keeps it: the email and reason, bounded. */
function impersonatorOf(impersonator: Impersonator): { email: string; reason: string | null } {
  return {
    email: String(impersonator.email).slice(0, 320),
    reason: impersonator.reason === null ? null : String(impersonator.reason).slice(0, 500),
  };
}
