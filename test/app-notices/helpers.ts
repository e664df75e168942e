/**
 * Fixtures of the app-notices tests: SessionManagers over the real local KV and session objects,
 * sign-ins, the user's object and its outbox, the objects' clock set a day ahead (so the runtime
 * never fires an alarm by itself: each test runs it), and the auxiliary app receiver (receiver.js)
 * through its control entrypoint: what reached it, and whether it should fail or hold.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { type IdentityUser, SessionManager, type SessionManagerOptions } from "gatehouse-workers/auth";
import type { SessionsEndedNotice } from "../../client-sdk/protocol/app-connections";
import type { SecurityEvent, SecurityEventType } from "../../client-sdk/protocol/security-record";
import type { UserSessions } from "../../durable-objects/user-sessions";

export const ORIGIN = "https://auth.example.com";

let counter = 0;
/** A fresh id per call, so objects never share state across tests. */
export function fresh(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${++counter}`;
}

/** A strict SessionManager over the test worker's bindings (with the organizations' objects). */
export function manager(options: SessionManagerOptions = {}): SessionManager {
  return new SessionManager(env.SESSIONS, env.SESSION_SECRET, {
    userSessions: env.USER_SESSIONS,
    organizations: env.ORGANIZATIONS,
    ...options,
  });
}

function identity(id: string, organizations: string[], providerSessionId?: string): IdentityUser {
  return {
    id,
    email: `${id}@acme.test`,
    firstName: "Test",
    lastName: id,
    memberships: organizations.map((organizationId) => ({
      organizationId,
      organizationSlug: organizationId.replaceAll("_", "-"),
      role: "member",
    })),
    ...(providerSessionId ? { providerSessionId } : {}),
  };
}

/** Signs `userId` in; returns the session id and its cookie (`name=value`). */
export async function signIn(
  sessions: SessionManager,
  userId: string,
  from: { organizations?: string[]; providerSessionId?: string } = {},
): Promise<{ sessionId: string; cookie: string }> {
  const organizations = from.organizations ?? ["org_acme"];
  const { sessionId, response } = await sessions.createSession(
    identity(userId, organizations, from.providerSessionId),
    organizations[0],
    { userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0", ip: "203.0.113.7" },
  );
  return { sessionId, cookie: response.headers.get("Set-Cookie")!.split(";")[0]! };
}

export function stubOf(userId: string) {
  return env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId));
}

export interface OutboxRow {
  seq: number;
  destination: string;
  attempts: number;
  next_at: number;
}

/** The user's outbox rows (every destination), by event then destination. */
export function outbox(userId: string): Promise<OutboxRow[]> {
  return runInDurableObject(stubOf(userId), (_o: UserSessions, state) =>
    state.storage.sql
      .exec<{ seq: number; destination: string; attempts: number; next_at: number }>(
        "SELECT seq, destination, attempts, next_at FROM outbox ORDER BY seq, destination",
      )
      .toArray()
      .map((r) => ({ ...r })),
  );
}

/** The user's events of `type`, newest first. */
export async function eventsOf(userId: string, type: SecurityEventType): Promise<SecurityEvent[]> {
  const page = await stubOf(userId).timeline({ limit: 100 });
  return page.events.filter((e) => e.type === type);
}

/** One call that reached the app receiver, and how it went. */
export interface ReceivedCall {
  notice: SessionsEndedNotice;
  outcome: "held" | "ok" | "failed";
}

/** The receiver's control entrypoint (receiver.js `Control`), typed. */
interface ReceiverControl {
  fail(userId: string, times: number): Promise<void>;
  hold(userId: string): Promise<void>;
  release(userId: string): Promise<void>;
  received(userId: string): Promise<ReceivedCall[]>;
}
export const receiver = env.APP_CONTROL as unknown as ReceiverControl;

/** Waits, at most `ms`, for `check` to answer a value; polls (the immediate attempt runs after the call returns). */
export async function eventually<T>(check: () => Promise<T | null>, what: string, ms = 5_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error(`${what}: not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The notices the receiver answered for `userId`, once its outbox holds no app row (every attempt settled). */
export async function delivered(userId: string): Promise<SessionsEndedNotice[]> {
  await eventually(
    async () => ((await outbox(userId)).some((r) => r.destination.startsWith("app:")) ? null : true),
    `app deliveries of ${userId} settled`,
  );
  return (await receiver.received(userId)).filter((c) => c.outcome === "ok").map((c) => c.notice);
}
