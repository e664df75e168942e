/**
 * Issue 18: a tab of a consuming app on another site joins its session's live channel with a
 * ticket the app minted over RPC (the SameSite=Lax cookie cannot come along). The ticket is the
 * socket's first message, single-use, short-lived, bound to one session of one user; a tab without
 * one hears nothing and cannot stay; a revocation reaches the tab that joined with it.
 */
import { exports } from "cloudflare:workers";
import { setObjectClock } from "gatehouse-workers/durable-objects";
import { afterEach, describe, expect, it } from "vitest";
import { TICKET_TTL_MS } from "../../durable-objects/user-sessions/tickets";
import { freshUser, manager, newSession, ORIGIN } from "../sessions/helpers";

const APP = "https://app.example.com";

interface Tab {
  status: number;
  frames: string[];
  ws: WebSocket | null;
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves with the first frame whose type is `type`. */
  next(type: string): Promise<string>;
}

/** A socket to `userId`'s channel from `origin`, without any cookie (a page of another site). */
async function connect(userId: string, origin = APP, cookie?: string, query = ""): Promise<Tab> {
  const res = await exports.default.fetch(`${ORIGIN}/parties/user-sessions/${userId}${query}`, {
    headers: { Upgrade: "websocket", Origin: origin, ...(cookie ? { Cookie: cookie } : {}) },
  });
  const frames: string[] = [];
  const waiters: { type: string; resolve: (frame: string) => void }[] = [];
  const ws = res.webSocket;
  if (!ws)
    return {
      status: res.status,
      frames,
      ws,
      closed: Promise.resolve({ code: 0, reason: "" }),
      next: () => new Promise(() => {}),
    };
  ws.accept();
  ws.addEventListener("message", (e) => {
    const frame = String(e.data);
    frames.push(frame);
    for (const w of waiters.filter((w) => frame.includes(`"type":"${w.type}"`))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(frame);
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason })),
  );
  return {
    status: res.status,
    frames,
    ws,
    closed,
    next: (type) => {
      const seen = frames.find((f) => f.includes(`"type":"${type}"`));
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ type, resolve }));
    },
  };
}

const within = <T>(promise: Promise<T>, ms = 2_000) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timed out")), ms))]);

afterEach(() => setObjectClock(null));

describe("live tickets (a tab of another site)", () => {
  it("joins with a minted ticket as its first message, then hears its session's revocation", async () => {
    const sessions = manager();
    const user = freshUser();
    const { sessionId, cookie } = await newSession(sessions, user);
    const minted = await sessions.liveTicket(cookie);
    expect(minted).toMatchObject({ userId: user, sessionId });
    expect(minted!.ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const tab = await connect(user);
    expect(tab.status).toBe(101);
    tab.ws!.send(JSON.stringify({ type: "ticket", ticket: minted!.ticket }));
    expect(await within(tab.next("live.ready"))).toContain(sessionId);
    await sessions.revokeSession(sessionId);
    expect(await within(tab.next("session.revoked"))).toContain(sessionId);
    expect((await within(tab.closed)).code).toBe(4001);
  });

  it("a ticket works once: a second tab presenting it is closed, and hears nothing", async () => {
    const sessions = manager();
    const user = freshUser();
    const { cookie } = await newSession(sessions, user);
    const { ticket } = (await sessions.liveTicket(cookie))!;
    const first = await connect(user);
    first.ws!.send(JSON.stringify({ type: "ticket", ticket }));
    await within(first.next("live.ready"));
    const second = await connect(user);
    second.ws!.send(JSON.stringify({ type: "ticket", ticket }));
    expect(await within(second.closed)).toEqual({ code: 4003, reason: "ticket refused" });
    expect(second.frames).toEqual([]);
  });

  it("refuses an expired ticket, another user's ticket, a guessed one, and anything but a ticket first", async () => {
    const sessions = manager();
    const [alice, bob] = [freshUser(), freshUser()];
    const a = await newSession(sessions, alice);
    const b = await newSession(sessions, bob);

    const stale = (await sessions.liveTicket(a.cookie))!.ticket;
    setObjectClock(() => Date.now() + TICKET_TTL_MS + 1);
    const late = await connect(alice);
    late.ws!.send(JSON.stringify({ type: "ticket", ticket: stale }));
    expect((await within(late.closed)).code).toBe(4003);
    setObjectClock(null);

    const bobs = (await sessions.liveTicket(b.cookie))!.ticket;
    const wrongUser = await connect(alice);
    wrongUser.ws!.send(JSON.stringify({ type: "ticket", ticket: bobs }));
    expect((await within(wrongUser.closed)).code).toBe(4003);

    for (const first of ["ping", JSON.stringify({ type: "ticket", ticket: "A".repeat(43) }), "{not json"]) {
      const tab = await connect(alice);
      tab.ws!.send(first);
      expect((await within(tab.closed)).code, first).toBe(4003);
      expect(tab.frames).toEqual([]);
    }
  });

  it("a tab waiting for its ticket hears nothing of the session meanwhile", async () => {
    const sessions = manager();
    const user = freshUser();
    const { cookie } = await newSession(sessions, user);
    const waiting = await connect(user);
    await newSession(sessions, user); // sessions.changed and a timeline event for joined tabs
    const { ticket } = (await sessions.liveTicket(cookie))!;
    waiting.ws!.send(JSON.stringify({ type: "ticket", ticket }));
    await within(waiting.next("live.ready"));
    expect(waiting.frames.map((f) => /"type":"([a-z.]+)"/.exec(f)?.[1])).toEqual(["live.ready"]);
  });

  it("no ticket for a revoked session; a site outside AUTH_RETURN_ORIGINS cannot open a socket at all", async () => {
    const sessions = manager();
    const user = freshUser();
    const { sessionId, cookie } = await newSession(sessions, user);
    await sessions.revokeSession(sessionId);
    expect(await sessions.liveTicket(cookie)).toBeNull();
    expect((await connect(user, "https://evil.example")).status).toBe(403);
  });

  it("a page that says it joins with a ticket (?join=ticket) waits for it even when its cookie comes along", async () => {
    const sessions = manager();
    const user = freshUser();
    const { sessionId, cookie } = await newSession(sessions, user);
    const tab = await connect(user, APP, cookie, "?join=ticket");
    expect(tab.status).toBe(101);
    await newSession(sessions, user);
    tab.ws!.send(JSON.stringify({ type: "ticket", ticket: (await sessions.liveTicket(cookie))!.ticket }));
    expect(await within(tab.next("live.ready"))).toContain(sessionId);
    expect(tab.frames).toHaveLength(1);
  });

  it("a tab that waits more than 10 s for its ticket is closed; a waiting tab never hears a sign-out everywhere", async () => {
    const sessions = manager();
    const user = freshUser();
    const { cookie } = await newSession(sessions, user);
    const slow = await connect(user);
    const { ticket } = (await sessions.liveTicket(cookie))!;
    setObjectClock(() => Date.now() + 10_001);
    slow.ws!.send(JSON.stringify({ type: "ticket", ticket }));
    expect((await within(slow.closed)).code).toBe(4003);
    setObjectClock(null);

    const waiting = await connect(user);
    const result = await sessions.revokeUser(user);
    expect(result.socketsClosed).toBe(0);
    waiting.ws!.send("ping"); // not a ticket: closed, and it heard nothing before
    await within(waiting.closed);
    expect(waiting.frames).toEqual([]);
  });

  it("keeps at most 32 tabs waiting for a ticket: a newer one closes the oldest", async () => {
    const user = freshUser();
    await newSession(manager(), user);
    const tabs: Tab[] = [];
    for (let i = 0; i < 33; i++) tabs.push(await connect(user));
    expect((await within(tabs[0]!.closed)).code).toBe(4003);
  });
});
