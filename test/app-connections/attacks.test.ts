/**
 * Attacks on the app side of app connections (issue 31 review): what a client sends never decides a
 * socket's session, user or registry; a notice closes only sockets its own user's registry holds
 * (a shared room holds other users' sockets too); a malformed or huge notice is refused or handled
 * without a throw; the registry keeps one row per session and holder however often a client
 * reconnects, and forgets it when its time is up; a notice while `register` is in flight still
 * closes the socket; nothing schedules an alarm.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { APP_CLOSE, MAX_NOTICE_SESSIONS, SESSION_TAG_PREFIX } from "gatehouse-workers/connections";
import { afterEach, describe, expect, it } from "vitest";
import {
  freshRoom,
  freshUser,
  newSession,
  notice,
  ORIGIN,
  open,
  socketOf,
  stats,
  upgrade,
  withTimeout,
} from "./helpers";
import { holdRegisterAnswers, setRegistryClock } from "./worker";

afterEach(() => setRegistryClock(null));

const DAY_MS = 24 * 3_600_000;

/** The user's registry rows: holders (session, binding, name) and tombstones. */
function registryRows(userId: string) {
  return runInDurableObject(env.GATEHOUSE_CONNECTIONS.getByName(userId), (_o, state) => ({
    holders: state.storage.sql
      .exec<{ session_id: string; binding: string; name: string }>("SELECT session_id, binding, name FROM holders")
      .toArray()
      .map((r) => ({ ...r })),
    ended: state.storage.sql
      .exec<{ session_id: string }>("SELECT session_id FROM ended")
      .toArray()
      .map((r) => r.session_id),
  }));
}

describe("what a client sends decides nothing", () => {
  it("a query, a subprotocol or a header naming another session or user registers nothing under them", async () => {
    const [u, v] = [freshUser(), freshUser()];
    const [s, victim] = [await newSession(u), await newSession(v)];
    const ra = freshRoom();
    const url = new URL(`${ORIGIN}/socket`);
    url.searchParams.set("session", victim.sessionId);
    url.searchParams.set("user", v);
    const res = await env.ROOM_A.getByName(ra).fetch(url, {
      headers: {
        Upgrade: "websocket",
        Cookie: s.cookie,
        "Sec-WebSocket-Protocol": `gatehouse-live, ${SESSION_TAG_PREFIX}${victim.sessionId}`,
        "X-Gatehouse-Session": victim.sessionId,
        "X-Gatehouse-User": v,
        "Secure-Session-Skipped": "unreachable",
      },
    });
    const socket = socketOf(res.webSocket!);
    expect(await socket.who()).toEqual({ session: s.sessionId, tags: [`${SESSION_TAG_PREFIX}${s.sessionId}`] });
    expect((await registryRows(u)).holders).toEqual([{ session_id: s.sessionId, binding: "ROOM_A", name: ra }]);
    expect((await registryRows(v)).holders).toEqual([]);
    // The victim's revocation leaves the attacker's socket alone; the attacker's own closes it.
    expect(await env.APP_RECEIVER.sessionsEnded(notice(v, [victim.sessionId]))).toEqual({ closed: 0 });
    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [s.sessionId]))).toEqual({ closed: 1 });
    expect(await withTimeout(socket.closed)).toEqual(APP_CLOSE.revoked);
  });

  it("an app tag cannot be a session tag, however spelled; a look-alike stays an app tag", async () => {
    const u = freshUser();
    const s = await newSession(u);
    const ra = freshRoom();
    for (const forged of [SESSION_TAG_PREFIX, `${SESSION_TAG_PREFIX}${s.sessionId}`, `${SESSION_TAG_PREFIX}x`]) {
      await expect(upgrade("ROOM_A", ra, s.cookie, [forged])).rejects.toThrow(/app tags must be at most 9/);
    }
    await expect(
      upgrade(
        "ROOM_A",
        ra,
        s.cookie,
        Array.from({ length: 10 }, (_, i) => `t${i}`),
      ),
    ).rejects.toThrow(/app tags must be at most 9/);
    // Upper case is another tag: getWebSockets matches exactly, so it names no session.
    const socket = await open("ROOM_A", ra, s, ["GH:S:someone"]);
    expect(await socket.who()).toMatchObject({ session: s.sessionId });
    expect(await env.ROOM_A.getByName(ra).gatehouseSessionsEnded(notice(u, ["someone"]))).toEqual({ closed: 0 });
    expect((await stats("ROOM_A", ra)).open).toEqual([s.sessionId]);
  });
});

describe("a notice closes only its own user's sockets", () => {
  it("in a room shared by two users, a notice for U naming V's session leaves V's socket open", async () => {
    const [u, v] = [freshUser(), freshUser()];
    const [s1, v1] = [await newSession(u), await newSession(v)];
    const ra = freshRoom();
    const mine = await open("ROOM_A", ra, s1);
    const theirs = await open("ROOM_A", ra, v1);
    // U's registry calls RoomA (it holds s1); RoomA must not close v1 on U's word.
    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [s1.sessionId, v1.sessionId]))).toEqual({ closed: 1 });
    expect(await withTimeout(mine.closed)).toEqual(APP_CLOSE.revoked);
    expect(await theirs.who()).toMatchObject({ session: v1.sessionId });
    expect((await stats("ROOM_A", ra)).open).toEqual([v1.sessionId]);
    // V's own notice still closes it.
    expect(await env.APP_RECEIVER.sessionsEnded(notice(v, [v1.sessionId]))).toEqual({ closed: 1 });
    expect(await withTimeout(theirs.closed)).toEqual(APP_CLOSE.revoked);
  });
});

describe("malformed and huge notices", () => {
  it("100,000 ids, a huge id, wrong types and prototype keys are refused or harmless, never a wrong close", async () => {
    const u = freshUser();
    const s = await newSession(u);
    const ra = freshRoom();
    const socket = await open("ROOM_A", ra, s);
    const refused: unknown[] = [
      { ...notice(u, [s.sessionId]), sessionIds: Array.from({ length: 100_000 }, (_, i) => `s${i}`) },
      { ...notice(u, [s.sessionId]), sessionIds: [s.sessionId, "x".repeat(1_000_000)] },
      { ...notice(u, [s.sessionId]), userId: "u".repeat(100_000) },
      { ...notice(u, [s.sessionId]), sessionIds: { 0: s.sessionId, length: 1 } },
      { ...notice(u, [s.sessionId]), sessionIds: s.sessionId },
      { ...notice(u, [s.sessionId]), kind: "__proto__" },
      [notice(u, [s.sessionId])],
      null,
    ];
    for (const bad of refused) {
      await expect(env.APP_RECEIVER.sessionsEnded(bad as never)).rejects.toMatchObject({ code: "invalid_notice" });
    }
    expect(await socket.who()).toMatchObject({ session: s.sessionId });

    // Own keys named like prototype members: ignored or plain strings, nothing polluted.
    const polluted = JSON.parse(
      JSON.stringify({ ...notice("__proto__", ["__proto__", "constructor", "toString"]), constructor: "x" }).replace(
        /^\{/,
        '{"__proto__":{"polluted":true},',
      ),
    );
    expect(await env.APP_RECEIVER.sessionsEnded(polluted)).toEqual({ closed: 0 });
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect((await registryRows("__proto__")).ended.sort()).toEqual(["__proto__", "constructor", "toString"]);

    // The largest notice allowed (1,000 ids of 256 characters) closes exactly the one socket it names.
    const many = Array.from({ length: MAX_NOTICE_SESSIONS - 1 }, (_, i) => `${i}`.padStart(256, "f"));
    expect(await env.APP_RECEIVER.sessionsEnded(notice(u, [...many, s.sessionId]))).toEqual({ closed: 1 });
    expect(await withTimeout(socket.closed)).toEqual(APP_CLOSE.revoked);
  });
});

describe("the registry's size", () => {
  it("one row per session and holder however often a client reconnects; gone when its time is up", async () => {
    const u = freshUser();
    const s = await newSession(u);
    const [ra, rb] = [freshRoom(), freshRoom()];
    const t0 = Date.now();
    setRegistryClock(() => t0);
    for (let i = 0; i < 20; i++) {
      const socket = await open("ROOM_A", ra, s);
      socket.ws.close(1000, "bye");
    }
    expect((await registryRows(u)).holders).toEqual([{ session_id: s.sessionId, binding: "ROOM_A", name: ra }]);
    // Kept 30 days (the session ends sooner), then purged by the next write.
    setRegistryClock(() => t0 + 30 * DAY_MS + 1);
    await open("ROOM_B", rb, s);
    expect((await registryRows(u)).holders).toEqual([{ session_id: s.sessionId, binding: "ROOM_B", name: rb }]);
  });
});

describe("a notice while register is in flight", () => {
  it("closes the socket already tagged (the holder is not locked while it waits for the registry)", async () => {
    const u = freshUser();
    const s = await newSession(u);
    const ra = freshRoom();
    const release = holdRegisterAnswers();
    let res: Response | undefined;
    const accepting = upgrade("ROOM_A", ra, s.cookie).then((r) => {
      res = r;
    });
    try {
      // The row is written, the answer held: the notice finds RoomA through the registry.
      for (let i = 0; (await registryRows(u)).holders.length === 0; i++) {
        if (i > 100) throw new Error("register never reached the registry");
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(await withTimeout(env.APP_RECEIVER.sessionsEnded(notice(u, [s.sessionId])))).toEqual({ closed: 1 });
      expect(res).toBeUndefined();
    } finally {
      release();
    }
    await withTimeout(accepting);
    expect(res!.status).toBe(101);
    expect(await withTimeout(socketOf(res!.webSocket!).closed)).toEqual(APP_CLOSE.revoked);
    expect((await stats("ROOM_A", ra)).open).toEqual([]);
  });
});

describe("hibernation", () => {
  it("neither the holder nor the registry sets an alarm (nothing wakes them on a timer)", async () => {
    const u = freshUser();
    const s = await newSession(u);
    const ra = freshRoom();
    await open("ROOM_A", ra, s);
    await env.APP_RECEIVER.sessionsEnded(notice(u, [s.sessionId], "device_proof_missing"));
    const alarmOf = (stub: DurableObjectStub) =>
      runInDurableObject(stub, (_o: unknown, state: DurableObjectState) => state.storage.getAlarm());
    expect(await alarmOf(env.ROOM_A.getByName(ra))).toBeNull();
    expect(await alarmOf(env.GATEHOUSE_CONNECTIONS.getByName(u))).toBeNull();
    const autoResponse = await runInDurableObject(env.ROOM_A.getByName(ra), (_o: unknown, state) =>
      state.getWebSocketAutoResponse(),
    );
    expect(autoResponse).toBeNull();
  });
});
