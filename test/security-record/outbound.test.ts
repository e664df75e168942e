/**
 * Every timeline event also leaves the object: as a signed webhook to SECURITY_EVENTS_WEBHOOK_URL
 * (answered by the auxiliary receiver, receiver.js) and to the SECURITY_EVENTS queue (consumed by
 * worker.ts). Deliveries are sent by the object's alarm; the objects' clock is set a day ahead so
 * the runtime never fires that alarm by itself during a test, and each test runs it explicitly.
 * Each event arrives once, its signature verifies with the documented recipe
 * (`verifySecurityEvent`), `Gatehouse-Event-Id` is the event id, and a failed delivery is retried
 * from the alarm after the backoff, not before.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SecurityEvent } from "../../client-sdk/protocol/security-record";
import { verifySecurityEvent } from "../../client-sdk/security-events";
import type { UserSessions } from "../../durable-objects/user-sessions";
import { RETRY_DELAYS_MS } from "../../durable-objects/user-sessions/security-record/outbox";
import { failNext, queued, received } from "./deliveries";
import { allEvents, freshUser, manager, signIn, stubOf } from "./helpers";

const outbox = (userId: string) =>
  runInDurableObject(stubOf(userId), (_o: UserSessions, state) =>
    state.storage.sql
      .exec<{ seq: number; destination: string; attempts: number; next_at: number }>(
        "SELECT seq, destination, attempts, next_at FROM outbox ORDER BY seq, destination",
      )
      .toArray(),
  );

const alarmAt = (userId: string) =>
  runInDurableObject(stubOf(userId), (_o: UserSessions, state) => state.storage.getAlarm());

let objectTime = 0;
beforeEach(() => {
  objectTime = Date.now() + 24 * 3600 * 1000;
  setObjectClock(() => objectTime);
});
afterEach(() => setObjectClock(null));

describe("the signed webhook", () => {
  it("delivers each event once, signed so the documented recipe verifies it, with the event id as idempotency key", async () => {
    const user = freshUser();
    await signIn(manager(), user);
    const events = await allEvents(user);
    expect(events.map((e) => e.type)).toEqual(["session.new_device", "session.signed_in"]);
    // Nothing leaves before the alarm runs.
    expect(await received(user)).toEqual([]);
    expect((await outbox(user)).map((r) => r.destination)).toEqual(["queue", "webhook", "queue", "webhook"]);

    await runDurableObjectAlarm(stubOf(user));
    const deliveries = await received(user);
    expect(deliveries).toHaveLength(2);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({
        method: "POST",
        url: env.SECURITY_EVENTS_WEBHOOK_URL,
        contentType: "application/json",
        status: 200,
      });
      const event = JSON.parse(delivery.body) as SecurityEvent;
      expect(delivery.eventId).toBe(event.id);
      expect(events.find((e) => e.id === event.id)).toEqual(event);
      const verdict = await verifySecurityEvent(delivery.body, delivery.signature, env.SECURITY_EVENTS_WEBHOOK_SECRET);
      expect(verdict).toMatchObject({ ok: true });
      // The verification is not vacuous: another body, another secret, or a stale delivery fail.
      expect(
        await verifySecurityEvent(
          delivery.body.replace(user, `${user}x`),
          delivery.signature,
          env.SECURITY_EVENTS_WEBHOOK_SECRET,
        ),
      ).toEqual({ ok: false, reason: "invalid_signature" });
      expect(await verifySecurityEvent(delivery.body, delivery.signature, "another-secret")).toEqual({
        ok: false,
        reason: "invalid_signature",
      });
      expect(
        await verifySecurityEvent(delivery.body, delivery.signature, env.SECURITY_EVENTS_WEBHOOK_SECRET, {
          now: Date.now() + 10 * 60 * 1000,
        }),
      ).toEqual({ ok: false, reason: "stale_timestamp" });
      // The verdict carries the signed event; a replay under another event id header is refused.
      const checked = await verifySecurityEvent(delivery.body, delivery.signature, env.SECURITY_EVENTS_WEBHOOK_SECRET, {
        eventId: delivery.eventId,
      });
      expect(checked).toMatchObject({ ok: true, event: { id: event.id, type: event.type } });
      expect(
        await verifySecurityEvent(delivery.body, delivery.signature, env.SECURITY_EVENTS_WEBHOOK_SECRET, {
          eventId: "evt_replayed_under_a_new_id",
        }),
      ).toEqual({ ok: false, reason: "event_id_mismatch" });
      await expect(verifySecurityEvent(delivery.body, delivery.signature, "")).rejects.toThrow(/must not be empty/);
    }
    expect(new Set(deliveries.map((d) => d.eventId))).toEqual(new Set(events.map((e) => e.id)));

    // Delivered means delivered: later alarms send nothing again.
    expect(await outbox(user)).toEqual([]);
    await runDurableObjectAlarm(stubOf(user));
    expect(await received(user)).toHaveLength(2);
  });

  it("retries a delivery the receiver refused, from the alarm, after the backoff and not before", async () => {
    const user = freshUser();
    await failNext(user, 1);
    const stub = stubOf(user);
    expect(await stub.recordLockout("a".repeat(64), "auth", 30, "192.0.2.1")).toBe(true);
    const [event] = await allEvents(user);
    const failedAt = objectTime;

    await runDurableObjectAlarm(stub);
    expect((await received(user)).map((d) => d.status)).toEqual([500]);
    const webhook = (await outbox(user)).filter((r) => r.destination === "webhook");
    expect(webhook).toEqual([
      { seq: event!.seq, destination: "webhook", attempts: 1, next_at: failedAt + RETRY_DELAYS_MS[0]! },
    ]);
    // The object's one alarm is set for the retry.
    expect(await alarmAt(user)).toBe(failedAt + RETRY_DELAYS_MS[0]!);

    // Not before the backoff…
    objectTime = failedAt + RETRY_DELAYS_MS[0]! - 1;
    await runDurableObjectAlarm(stub);
    expect(await received(user)).toHaveLength(1);
    // …and at it, delivered: the same event, the same id, freshly signed.
    objectTime = failedAt + RETRY_DELAYS_MS[0]!;
    await runDurableObjectAlarm(stub);
    const deliveries = await received(user);
    expect(deliveries.map((d) => d.status)).toEqual([500, 200]);
    expect(deliveries.map((d) => d.eventId)).toEqual([event!.id, event!.id]);
    expect(deliveries[1]!.body).toBe(deliveries[0]!.body);
    for (const d of deliveries) {
      expect(await verifySecurityEvent(d.body, d.signature, env.SECURITY_EVENTS_WEBHOOK_SECRET)).toMatchObject({
        ok: true,
      });
    }
    expect(await outbox(user)).toEqual([]);
  });

  it("backs off further after each failure", async () => {
    const user = freshUser();
    await failNext(user, 3);
    const stub = stubOf(user);
    await stub.recordLockout("b".repeat(64), "auth", 30);
    const start = objectTime;
    let expectedNext = start;
    for (let attempt = 0; attempt < 3; attempt++) {
      objectTime = expectedNext;
      await runDurableObjectAlarm(stub);
      expectedNext = objectTime + RETRY_DELAYS_MS[attempt]!;
      expect((await outbox(user)).find((r) => r.destination === "webhook")).toMatchObject({
        attempts: attempt + 1,
        next_at: expectedNext,
      });
    }
    objectTime = expectedNext;
    await runDurableObjectAlarm(stub);
    expect((await received(user)).map((d) => d.status)).toEqual([500, 500, 500, 200]);
  });
});

describe("the SECURITY_EVENTS queue", () => {
  it("receives every event once, as the timeline holds it", async () => {
    const user = freshUser();
    const sessions = manager();
    const s = await signIn(sessions, user);
    await sessions.revokeSession(s.sessionId);
    const events = await allEvents(user);
    expect(events.map((e) => e.type)).toEqual(["session.revoked", "session.new_device", "session.signed_in"]);
    await runDurableObjectAlarm(stubOf(user));
    expect((await outbox(user)).filter((r) => r.destination === "queue")).toEqual([]);
    const messages = await queued(user, 3);
    expect(messages).toHaveLength(3);
    expect([...messages].sort((a, b) => a.seq - b.seq)).toEqual([...events].sort((a, b) => a.seq - b.seq));
  });

  it("sends an event appended after a delivery run in the next one, and only that one", async () => {
    const user = freshUser();
    const stub = stubOf(user);
    await stub.recordLockout("c".repeat(64), "auth", 30);
    await runDurableObjectAlarm(stub);
    await queued(user, 1);
    await stub.recordLockout("c".repeat(64), "admin", 30);
    await runDurableObjectAlarm(stub);
    const messages = await queued(user, 2);
    expect(messages.map((m) => m.detail.family).sort()).toEqual(["admin", "auth"]);
    expect(messages.map((m) => m.id)).toHaveLength(new Set(messages.map((m) => m.id)).size);
  });
});

describe("the ended sessions' ids (issue 31)", () => {
  it("every revocation and refusal names its sessions in sessionIds, in the webhook's and the queue's payloads alike", async () => {
    const user = freshUser();
    const sessions = manager();
    const [a, b, keep] = [await signIn(sessions, user), await signIn(sessions, user), await signIn(sessions, user)];
    await sessions.revokeOtherSessions(user, keep.sessionId);
    await sessions.revokeSession(keep.sessionId);
    expect(await stubOf(user).recordRefused(keep.sessionId, { ip: "192.0.2.9" }, "revoked")).toBe(true);
    const events = await allEvents(user);
    const ended = events.filter((e) => e.type === "session.revoked" || e.type === "session.refused");
    expect(ended.map((e) => [e.type, [...(e.sessionIds ?? [])].sort()])).toEqual([
      ["session.refused", [keep.sessionId]],
      ["session.revoked", [keep.sessionId]],
      ["session.revoked", [a.sessionId, b.sessionId].sort()],
    ]);
    // Other events keep their shape: no sessionIds field at all.
    for (const e of events.filter((e) => !ended.includes(e))) expect(e).not.toHaveProperty("sessionIds");
    // No app is configured in this worker: only the host's destinations.
    expect(new Set((await outbox(user)).map((r) => r.destination))).toEqual(new Set(["queue", "webhook"]));

    await runDurableObjectAlarm(stubOf(user));
    const bodies = (await received(user)).map((d) => JSON.parse(d.body) as SecurityEvent);
    const messages = await queued(user, events.length);
    for (const event of ended) {
      expect(bodies.find((b) => b.id === event.id)?.sessionIds).toEqual(event.sessionIds);
      expect(messages.find((m) => m.id === event.id)?.sessionIds).toEqual(event.sessionIds);
    }
  });
});
