/**
 * @module
 * Shape checks for what comes back over the service binding. The binding is
 * a trust boundary in the other direction too: a misrouted binding (another
 * worker's entrypoint) must fail loudly rather than hand a handler a half user.
 * Checks only what callers rely on; they never copy or rewrite the answer. A
 * session policy's shape is its contract's (`protocol/policy.ts`), checked whole.
 */
import { isSessionPolicy } from "../protocol/policy";
import type {
  AccessTokenResult,
  AppUser,
  AuthServiceSession,
  KnownDevice,
  LiveTicket,
  OrganizationPolicy,
  RevocationReceipt,
  RevocationResult,
  SessionInfo,
  TimelinePage,
} from "./types";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function isMembership(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.organizationId === "string" &&
    typeof value.organizationSlug === "string" &&
    typeof value.role === "string"
  );
}

import type { RateLimitDecision } from "../rate-limit";

export function isAppUser(value: unknown): value is AppUser {
  return (
    isRecord(value) &&
    typeof value.id === "string" &&
    typeof value.email === "string" &&
    typeof value.firstName === "string" &&
    typeof value.lastName === "string" &&
    (value.organizationId === undefined || typeof value.organizationId === "string") &&
    Array.isArray(value.memberships) &&
    value.memberships.every(isMembership)
  );
}

export function isSession(value: unknown): value is AuthServiceSession {
  return (
    isRecord(value) &&
    typeof value.sessionId === "string" &&
    typeof value.expiresAt === "number" &&
    isAppUser(value.user)
  );
}

export function isSessionList(value: unknown): value is SessionInfo[] {
  return Array.isArray(value) && value.every((s) => isRecord(s) && typeof s.id === "string");
}

export function isRevocation(value: unknown): value is RevocationResult {
  return isRecord(value) && typeof value.revoked === "number";
}

export function isRateDecision(value: unknown): value is RateLimitDecision {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.allowed === "boolean" && typeof v.remaining === "number" && typeof v.resetAt === "number";
}

/** `count` rate-limit decisions, one per check of a batch. */
export function isRateDecisionList(count: number): (value: unknown) => value is RateLimitDecision[] {
  return (value): value is RateLimitDecision[] =>
    Array.isArray(value) && value.length === count && value.every(isRateDecision);
}

export function isTimelinePage(value: unknown): value is TimelinePage {
  return (
    isRecord(value) &&
    (value.nextCursor === null || typeof value.nextCursor === "string") &&
    Array.isArray(value.events) &&
    value.events.every(
      (e) => isRecord(e) && typeof e.id === "string" && typeof e.type === "string" && typeof e.at === "number",
    )
  );
}

export function isDeviceList(value: unknown): value is KnownDevice[] {
  return (
    Array.isArray(value) &&
    value.every((d) => isRecord(d) && typeof d.device === "string" && typeof d.lastSeenAt === "number")
  );
}

export function isReceipt(value: unknown): value is RevocationReceipt {
  return (
    isRecord(value) &&
    typeof value.id === "string" &&
    typeof value.revoked === "number" &&
    (typeof value.refusedAfterMs === "number" || value.refusedAfterMs === null)
  );
}

export function isPolicyAnswer(value: unknown): value is OrganizationPolicy {
  return (
    isRecord(value) &&
    isSessionPolicy(value.policy) &&
    (value.source === "operator" || value.source === "configured" || value.source === "default")
  );
}

export function isLiveTicket(value: unknown): value is LiveTicket {
  return (
    isRecord(value) &&
    typeof value.ticket === "string" &&
    typeof value.userId === "string" &&
    typeof value.expiresAt === "number" &&
    typeof value.channelUrl === "string" &&
    /^wss?:\/\//.test(value.channelUrl) &&
    typeof value.scriptUrl === "string" &&
    /^https?:\/\//.test(value.scriptUrl) &&
    typeof value.signedOutUrl === "string" &&
    /^https?:\/\//.test(value.signedOutUrl)
  );
}

export function isAccessTokenResult(value: unknown): value is AccessTokenResult {
  if (!isRecord(value)) return false;
  if (value.ok === true) return typeof value.accessToken === "string" && typeof value.expiresAt === "number";
  return value.ok === false && typeof value.reason === "string";
}
