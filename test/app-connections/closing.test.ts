/**
 * A notice closes exactly the sockets of its sessions, with the code of its kind, in whichever
 * holder objects hold them, and nothing else: several sessions, two rooms, two users. Only the
 * holders registered for the ids are called, so a hibernated room holding none of them stays asleep.
 */
import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { APP_CLOSE } from "gatehouse-workers/connections";
import { describe, expect, it } from "vitest";
import { freshRoom, freshUser, newSession, notice, open, stats, withTimeout } from "./helpers";

describe("a notice closes its sessions' sockets and no other", () => {
  it("across two rooms and two users, 4001 for a revocation and 4004 for a missing device proof", async () => {
    const [u, v] = [freshUser(), freshUser()];
    const [s1, s2, s3, v1] = [await newSession(u), await newSession(u), await newSession(u), await newSession(v)];
    const [ra, rb] = [freshRoom(), freshRoom()];
    const s1a = await open("ROOM_A", ra, s1);
    const s1aSecondTab = await open("ROOM_A", ra, s1);
    const s1b = await open("ROOM_B", rb, s1);
    const s2a = await open("ROOM_A", ra, s2);
    const s3b = await open("ROOM_B", rb, s3);
    const v1a = await open("ROOM_A", ra, v1);

    // V's registry knows nothing of U's sessions: a notice naming them under V closes nothing.
    expect(await env.APP_RECEIVER.sessionsEnded(notice(v, [s3.sessionId]))).toEqual({ closed: 0 });
    expect(await s3b.who()).toMatchObject({ session: s3.sessionId });

    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [s1.sessionId]))).toEqual({ closed: 3 });
    for (const socket of [s1a, s1aSecondTab, s1b]) {
      expect(await withTimeout(socket.closed)).toEqual(APP_CLOSE.revoked);
    }
    for (const [socket, session] of [
      [s2a, s2],
      [s3b, s3],
      [v1a, v1],
    ] as const) {
      expect(await socket.who()).toMatchObject({ session: session.sessionId });
    }
    expect((await stats("ROOM_A", ra)).open).toEqual([s2.sessionId, v1.sessionId].sort());
    expect((await stats("ROOM_B", rb)).open).toEqual([s3.sessionId]);

    expect(
      await env.APP_RECEIVER.sessionsEnded(notice(u, [s2.sessionId, s3.sessionId], "device_proof_missing")),
    ).toEqual({ closed: 2 });
    expect(await withTimeout(s2a.closed)).toEqual(APP_CLOSE.deviceProofMissing);
    expect(await withTimeout(s3b.closed)).toEqual(APP_CLOSE.deviceProofMissing);
    expect(await v1a.who()).toMatchObject({ session: v1.sessionId });

    expect(await env.APP_RECEIVER.sessionsEnded(notice(v, [v1.sessionId]))).toEqual({ closed: 1 });
    expect(await withTimeout(v1a.closed)).toEqual(APP_CLOSE.revoked);
    expect((await stats("ROOM_A", ra)).open).toEqual([]);
  });

  it("never wakes a hibernated room that holds none of the notice's sessions", async () => {
    const u = freshUser();
    const [s1, s3] = [await newSession(u), await newSession(u)];
    const [ra, rb] = [freshRoom(), freshRoom()];
    await open("ROOM_A", ra, s1);
    const s3b = await open("ROOM_B", rb, s3);
    const before = await stats("ROOM_B", rb);
    await evictDurableObject(env.ROOM_B.getByName(rb)); // hibernates its socket, drops the instance

    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [s1.sessionId]))).toEqual({ closed: 1 });
    expect((await stats("ROOM_A", ra)).calls).toBe(1);
    // Reading the stats wakes RoomB once; the notice did not (no other constructor run, no call).
    const after = await stats("ROOM_B", rb);
    expect(after.constructs).toBe(before.constructs + 1);
    expect(after.calls).toBe(0);
    expect(await s3b.who()).toMatchObject({ session: s3.sessionId });
  });

  it("a notice for a user with no registered holder calls nothing", async () => {
    const u = freshUser();
    const s = await newSession(u);
    const ra = freshRoom();
    await open("ROOM_A", ra, s);
    expect(await env.APP_RECEIVER.sessionsEnded(notice(freshUser(), [s.sessionId]))).toEqual({ closed: 0 });
    expect((await stats("ROOM_A", ra)).calls).toBe(0);
  });

  it("a repeated notice closes nothing and is no error; the holder itself counts only open sockets", async () => {
    const u = freshUser();
    const s = await newSession(u);
    const ra = freshRoom();
    const socket = await open("ROOM_A", ra, s);
    const n = notice(u, [s.sessionId]);
    expect(await env.APP_RECEIVER.sessionsEnded(n)).toEqual({ closed: 1 });
    expect(await env.APP_RECEIVER.sessionsEnded(n)).toEqual({ closed: 0 });
    // The registry no longer calls the room; called directly, the room finds nothing open either.
    expect(await env.ROOM_A.getByName(ra).gatehouseSessionsEnded(n)).toEqual({ closed: 0 });
    expect(await withTimeout(socket.closed)).toEqual(APP_CLOSE.revoked);
    expect((await stats("ROOM_A", ra)).calls).toBe(2);
  });

  it("a holder that does not answer fails the notice (retried), after the others closed theirs", async () => {
    const u = freshUser();
    const s = await newSession(u);
    const ra = freshRoom();
    const socket = await open("ROOM_A", ra, s);
    // A row naming a namespace whose objects have no gatehouseSessionsEnded: that holder's call fails.
    const registry = env.GATEHOUSE_CONNECTIONS.getByName(u);
    expect(
      await registry.register({ sessionId: s.sessionId, binding: "CONNECTIONS_DOWN", name: "gone", expiresAt: 0 }),
    ).toBe("ok");
    await expect(env.APP_RECEIVER.sessionsEnded(notice(u, [s.sessionId]))).rejects.toMatchObject({
      code: "holder_unavailable",
      message: "1 of 2 holders did not answer the notice",
    });
    expect(await withTimeout(socket.closed)).toEqual(APP_CLOSE.revoked);
    // The retry calls only the holder that failed: RoomA answered, so its row is gone.
    await expect(env.APP_RECEIVER.sessionsEnded(notice(u, [s.sessionId]))).rejects.toThrow(/1 of 1 holders/);
    expect((await stats("ROOM_A", ra)).calls).toBe(1);
  });
});
