/**
 * `SessionSockets.accept`: no socket without a live session; a socket tagged with its session and
 * registered with the user's registry; a revocation that reached the registry first closes the
 * new socket 4001 at once (the race), until the tombstone's time is up (the registry's injected
 * clock); a registry that does not answer closes it 1011 (fail closed). Tags outlive an eviction.
 */
import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { APP_CLOSE, REGISTRY_UNAVAILABLE_CLOSE, SESSION_TAG_PREFIX } from "gatehouse-workers/connections";
import { afterEach, describe, expect, it } from "vitest";
import { freshRoom, freshUser, newSession, notice, open, socketOf, stats, upgrade, withTimeout } from "./helpers";
import { setRegistryClock } from "./worker";

afterEach(() => setRegistryClock(null));

describe("accept", () => {
  it("answers 401 without a live session and 426 without an upgrade, opening nothing", async () => {
    const ra = freshRoom();
    expect((await upgrade("ROOM_A", ra, null)).status).toBe(401);
    expect((await upgrade("ROOM_A", ra, "app_session=unknown")).status).toBe(401);
    const s = await newSession(freshUser());
    const plain = await env.ROOM_A.getByName(ra).fetch("https://app.example.com/socket", {
      headers: { Cookie: s.cookie },
    });
    expect(plain.status).toBe(426);
    expect((await stats("ROOM_A", ra)).open).toEqual([]);
  });

  it("tags the socket with its session beside the app's tags, and refuses a forged session tag", async () => {
    const s = await newSession(freshUser());
    const ra = freshRoom();
    const socket = await open("ROOM_A", ra, s, ["lobby", "team:7"]);
    expect(await socket.who()).toEqual({
      session: s.sessionId,
      tags: [`${SESSION_TAG_PREFIX}${s.sessionId}`, "lobby", "team:7"],
    });
    await expect(upgrade("ROOM_A", ra, s.cookie, [`${SESSION_TAG_PREFIX}someone-else`])).rejects.toThrow(
      /app tags must be at most 9/,
    );
  });

  it("a revocation that arrived before the socket registered closes it 4001 at accept", async () => {
    const u = freshUser();
    const [s1, s2] = [await newSession(u), await newSession(u)];
    const ra = freshRoom();
    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [s1.sessionId]))).toEqual({ closed: 0 });
    // The stand-in still resolves s1 (as an eventual-mode resolve may for a moment): the registry refuses.
    const res = await upgrade("ROOM_A", ra, s1.cookie);
    expect(res.status).toBe(101);
    expect(await withTimeout(socketOf(res.webSocket!).closed)).toEqual(APP_CLOSE.revoked);
    expect((await stats("ROOM_A", ra)).open).toEqual([]);

    // A missing device proof ends no session: the real device reconnects.
    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [s2.sessionId], "device_proof_missing"))).toEqual({
      closed: 0,
    });
    const again = await open("ROOM_A", ra, s2);
    expect(await again.who()).toMatchObject({ session: s2.sessionId });
  });

  it("keeps the tombstone a day by the registry's clock, then forgets it", async () => {
    const u = freshUser();
    const s = await newSession(u);
    const ra = freshRoom();
    const t0 = Date.now();
    setRegistryClock(() => t0);
    await env.APP_RECEIVER.sessionsEnded(notice(u, [s.sessionId]));
    setRegistryClock(() => t0 + 24 * 3_600_000 - 1);
    const refused = await upgrade("ROOM_A", ra, s.cookie);
    expect(await withTimeout(socketOf(refused.webSocket!).closed)).toEqual(APP_CLOSE.revoked);
    setRegistryClock(() => t0 + 24 * 3_600_000);
    const socket = await open("ROOM_A", ra, s);
    expect(await socket.who()).toMatchObject({ session: s.sessionId });
  });

  it("closes the socket 1011 when the registry does not answer (fail closed)", async () => {
    const s = await newSession(freshUser());
    const rd = freshRoom();
    const res = await upgrade("ROOM_DOWN", rd, s.cookie);
    expect(res.status).toBe(101);
    expect(await withTimeout(socketOf(res.webSocket!).closed)).toEqual(REGISTRY_UNAVAILABLE_CLOSE);
    expect((await stats("ROOM_DOWN", rd)).open).toEqual([]);
  });

  it("finds a socket by its tag after the holder was evicted (hibernated socket, new instance)", async () => {
    const u = freshUser();
    const [s1, s2] = [await newSession(u), await newSession(u)];
    const ra = freshRoom();
    const stub = env.ROOM_A.getByName(ra);
    const a = await open("ROOM_A", ra, s1, ["lobby"]);
    const b = await open("ROOM_A", ra, s2);
    const before = await stats("ROOM_A", ra);
    await evictDurableObject(stub);
    // The woken instance reads the session back from the tag alone.
    expect(await a.who()).toEqual({ session: s1.sessionId, tags: [`${SESSION_TAG_PREFIX}${s1.sessionId}`, "lobby"] });
    await evictDurableObject(stub);
    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [s1.sessionId]))).toEqual({ closed: 1 });
    expect(await withTimeout(a.closed)).toEqual(APP_CLOSE.revoked);
    expect(await b.who()).toMatchObject({ session: s2.sessionId });
    const after = await stats("ROOM_A", ra);
    expect(after.constructs).toBeGreaterThanOrEqual(before.constructs + 2);
    expect(after).toMatchObject({ calls: 1, open: [s2.sessionId] });
  });
});
