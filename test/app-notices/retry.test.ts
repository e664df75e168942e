/**
 * A notice is delivered at least once and, while an attempt is in flight, not twice (issue 31):
 * a failed immediate attempt leaves its outbox row with the usual backoff, the object may be
 * evicted, and its alarm sends the row once the backoff passed (by the objects' clock, injected),
 * then removes it; the immediate attempt's lease keeps the alarm off a row whose call is still
 * waiting for the app. The alarm sends the apps' rows before its KV work. Also the start-up check:
 * a named app's binding missing answers 503 and names it.
 */
import {
  createExecutionContext,
  evictDurableObject,
  runDurableObjectAlarm,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UserSessions } from "../../durable-objects/user-sessions";
import { APP_LEASE_MS } from "../../durable-objects/user-sessions/app-connections";
import { RETRY_DELAYS_MS } from "../../durable-objects/user-sessions/security-record/outbox";
import { delivered, eventsOf, eventually, fresh, manager, ORIGIN, outbox, receiver, signIn, stubOf } from "./helpers";
import worker from "./worker";

let now = 0;
beforeEach(() => {
  now = Date.now() + 24 * 3600 * 1000;
  setObjectClock(() => now);
});
afterEach(() => setObjectClock(null));

const appRows = async (userId: string) => (await outbox(userId)).filter((r) => r.destination === "app:receiver");

describe("a notice the app did not take", () => {
  it("is retried by the alarm after the backoff, across an eviction of the object, then removed", async () => {
    const user = fresh("user");
    const sessions = manager();
    const a = await signIn(sessions, user);
    await receiver.fail(user, 1);
    const failedAt = now;
    await sessions.revokeSession(a.sessionId);
    const [event] = await eventsOf(user, "session.revoked");

    // The immediate attempt failed: the row waits for the first backoff, the alarm set for it.
    const [row] = await eventually(async () => {
      const rows = await appRows(user);
      return rows[0]?.attempts === 1 ? rows : null;
    }, "the failed attempt settled");
    expect(row).toEqual({
      seq: event!.seq,
      destination: "app:receiver",
      attempts: 1,
      next_at: failedAt + RETRY_DELAYS_MS[0]!,
    });
    expect((await receiver.received(user)).map((c) => c.outcome)).toEqual(["failed"]);
    const alarm = await stubOf(user).stats();
    expect(alarm.pendingDeliveries).toBe(1);

    // The object goes away (its in-memory state with it); the row is in its storage.
    await evictDurableObject(stubOf(user));

    // Not before the backoff…
    now = failedAt + RETRY_DELAYS_MS[0]! - 1;
    await runDurableObjectAlarm(stubOf(user));
    expect(await receiver.received(user)).toHaveLength(1);
    // …and at it: delivered by the alarm, the same notice, the row gone.
    now = failedAt + RETRY_DELAYS_MS[0]!;
    expect(await runDurableObjectAlarm(stubOf(user))).toBe(true);
    const calls = await receiver.received(user);
    expect(calls.map((c) => c.outcome)).toEqual(["failed", "ok"]);
    expect(calls[1]!.notice).toEqual(calls[0]!.notice);
    expect(calls[1]!.notice).toMatchObject({ id: event!.id, sessionIds: [a.sessionId] });
    expect(await appRows(user)).toEqual([]);
    // The operator's view names the app and both attempts.
    const log = await stubOf(user).deliveries(10);
    expect(log.recent.map((d) => [d.destination, d.outcome, d.attempt])).toEqual([
      ["app:receiver", "delivered", 2],
      ["app:receiver", "failed", 1],
    ]);
  });

  it("is sent by the alarm while the revocation's KV marks keep failing (apps go before the KV work)", async () => {
    const user = fresh("user");
    const sessions = manager();
    // This user's object is built with a KV binding that refuses every write (nothing bound by that name).
    UserSessions.sessionsBinding = "NO_SUCH_KV";
    try {
      const a = await signIn(sessions, user);
      await receiver.fail(user, 1);
      await sessions.revokeSession(a.sessionId);
      await eventually(async () => ((await appRows(user))[0]?.attempts === 1 ? true : null), "the failed attempt");
      const stub = stubOf(user);
      expect((await stub.stats()).pendingKvDeletes).toBe(1);
      now += RETRY_DELAYS_MS[0]!;
      await runDurableObjectAlarm(stub);
      expect((await receiver.received(user)).map((c) => c.outcome)).toEqual(["failed", "ok"]);
      expect(await appRows(user)).toEqual([]);
      // The KV mark is still pending: the alarm keeps retrying it on its own.
      expect((await stub.stats()).pendingKvDeletes).toBe(1);
    } finally {
      UserSessions.sessionsBinding = "SESSIONS";
    }
  });
});

describe("the immediate attempt's lease", () => {
  it("keeps the alarm from sending a row whose call is still in flight: one call, then the row goes", async () => {
    const user = fresh("user");
    const sessions = manager();
    const a = await signIn(sessions, user);
    await receiver.hold(user);
    const revokedAt = now;
    await sessions.revokeSession(a.sessionId);
    // The call reached the app and waits there; the row is leased past the deadline.
    await eventually(async () => ((await receiver.received(user)).length === 1 ? true : null), "the held call");
    expect(await appRows(user)).toEqual([expect.objectContaining({ attempts: 0, next_at: revokedAt + APP_LEASE_MS })]);
    // Alarms meanwhile (now, and just before the lease ends) leave it alone.
    await runDurableObjectAlarm(stubOf(user));
    now = revokedAt + APP_LEASE_MS - 1;
    await runDurableObjectAlarm(stubOf(user));
    expect(await receiver.received(user)).toHaveLength(1);

    await receiver.release(user);
    const notices = await delivered(user);
    expect(notices).toHaveLength(1);
    expect(await receiver.received(user)).toHaveLength(1);
    // Nothing left for a later alarm to send again.
    now = revokedAt + APP_LEASE_MS + 1;
    await runDurableObjectAlarm(stubOf(user));
    expect(await receiver.received(user)).toHaveLength(1);
  });
});

async function health(e: Cloudflare.Env): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch!(new Request(`${ORIGIN}/health`), e as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("the start-up check", () => {
  it("answers 503 while a named app's binding is not bound, and logs its name", async () => {
    const { APP_RECEIVER: _dropped, ...rest } = env;
    const logs: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logs.push(args.join(" "));
    try {
      // The check runs once per env object: this one lacks the binding.
      expect((await health(rest as Cloudflare.Env)).status).toBe(503);
    } finally {
      console.error = original;
    }
    expect(logs.some((line) => line.includes("APP_RECEIVER is not bound"))).toBe(true);
    // With it bound, the worker answers.
    expect((await health(env)).status).toBe(200);
  });
});
