/**
 * What the shared-signals stream tests share: the reference receivers (test/ssf-reference, written
 * from SSF 1.0, driving the worker in-process), the reference push endpoint's record, the users'
 * sessions, and the two alarms that carry an event out (the user's object hands it to SsfStreams,
 * which pushes it). Nothing here parses what our code sends: set.ts does, from the texts.
 */
import { runDurableObjectAlarm, SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { SessionManager } from "gatehouse-workers/auth";
import type { JSONWebKeySet } from "jose";
import { expect } from "vitest";
import { SsfReferenceReceiver } from "../ssf-reference/client";
import { type VerifiedSet, verifySet } from "../ssf-reference/set";
import { ISSUER } from "./worker";

export const receivers = {
  siem: () => new SsfReferenceReceiver({ issuer: ISSUER, token: env.SSF_TOKEN_SIEM, fetch: (r) => SELF.fetch(r) }),
  warehouse: () =>
    new SsfReferenceReceiver({ issuer: ISSUER, token: env.SSF_TOKEN_WAREHOUSE, fetch: (r) => SELF.fetch(r) }),
};

export function manager(): SessionManager {
  return new SessionManager(env.SESSIONS, env.SESSION_SECRET, {
    userSessions: env.USER_SESSIONS,
    organizations: env.ORGANIZATIONS,
  });
}

let n = 0;
/** A user id no other test uses. */
export function freshUser(): string {
  return `user_ssfs_${Date.now().toString(36)}_${++n}`;
}

/** A session of `userId`, signed in to `organization` (a member of it) or to none. */
export async function signIn(userId: string, organization?: string): Promise<string> {
  const memberships = organization
    ? [{ organizationId: organization, organizationSlug: organization.replaceAll("_", "-"), role: "member" }]
    : [];
  const user = { id: userId, email: `${userId}@acme.test`, firstName: "Test", lastName: userId, memberships };
  return (await manager().createSession(user, organization)).sessionId;
}

/** How our SETs name a user: `iss_sub` under our issuer (RFC 9493 §3.2.6). */
export const userSubject = (userId: string) => ({ format: "iss_sub", iss: ISSUER, sub: userId });

export const userStub = (userId: string) => env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId));
export const streamsStub = () => env.SSF_STREAMS.get(env.SSF_STREAMS.idFromName("streams"));

/** Runs the user's alarm (the hand-off to the streams object), then the streams object's (the pushes). */
export async function carryOut(userId: string): Promise<void> {
  expect(await runDurableObjectAlarm(userStub(userId)), "the user's object had an alarm").toBe(true);
  await runDurableObjectAlarm(streamsStub());
}

/** One push the reference endpoint kept. */
export interface Push {
  url: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  status: number;
  err?: string | null;
  violations?: string[];
}

/** The pushes to `path` (the stream's endpoint path), oldest first. */
export async function pushesTo(path: string): Promise<Push[]> {
  const res = await fetch(`https://receiver.control/received?path=${encodeURIComponent(path)}`);
  return (await res.json()) as Push[];
}

/** The next `times` pushes to `path` answer `status` (with an RFC 8935 `err` for a 400). */
export async function answerNext(path: string, status: number, times = 1, err?: string): Promise<void> {
  const query = new URLSearchParams({ path, status: String(status), times: String(times), ...(err ? { err } : {}) });
  const res = await fetch(`https://receiver.control/respond?${query}`, { method: "POST" });
  expect(res.ok).toBe(true);
}

/** A path no other test pushes to. */
let p = 0;
export function freshPath(): string {
  return `/events/${Date.now().toString(36)}-${++p}`;
}

/** Verifies every push with the reference verifier (RFC 8417, SSF 1.0 §4, CAEP/RISC schemas). */
export async function verified(pushes: Push[], audience: string, nowMs?: number): Promise<VerifiedSet[]> {
  const jwks = await jwksOf();
  const now = nowMs === undefined ? {} : { now: Math.floor(nowMs / 1000) };
  return Promise.all(pushes.map((push) => verifySet(push.body, { jwks, issuer: ISSUER, audience, ...now })));
}

export async function jwksOf(): Promise<JSONWebKeySet> {
  const receiver = receivers.siem();
  await receiver.discover();
  return receiver.jwks();
}

/** A stream for `receiver` pushing to `path` under `origin`; returns its id. */
export async function createStream(
  receiver: SsfReferenceReceiver,
  origin: string,
  path: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  await receiver.discover();
  const res = await receiver.createStream({
    delivery: { method: "urn:ietf:rfc:8935", endpoint_url: `${origin}${path}` },
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return (res.body as { stream_id: string }).stream_id;
}

/** The provider adds `userId` to each organization, one membership event after another (`at` + 1, + 2, …). */
export async function joinOrganizations(userId: string, organizations: readonly string[], at: number): Promise<void> {
  for (const [i, org] of organizations.entries()) {
    await userStub(userId).applyProviderEvent({
      id: `event_${userId}_${i + 1}`,
      type: "organization_membership.created",
      occurredAt: at + i + 1,
      organizationId: org,
      organizationSlug: org,
      role: "member",
    });
  }
}

/** Deletes every stream both configured receivers have (their number is limited): each test starts with none. */
export async function deleteAllStreams(): Promise<void> {
  for (const receiver of [receivers.siem(), receivers.warehouse()]) {
    await receiver.discover();
    for (const config of (await receiver.readStream()).body as { stream_id: string }[]) {
      await receiver.deleteStream(config.stream_id);
    }
  }
}
