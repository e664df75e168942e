/**
 * Issues 18 and 25: a tab of a consuming app on another site joins its session's live channel with
 * a ticket the app minted over RPC (the SameSite=Lax cookie cannot come along). The ticket travels
 * in the upgrade itself (`Sec-WebSocket-Protocol: gatehouse-live, gatehouse-ticket.<ticket>`),
 * signed for one user and checked by the worker before any object is reached; the object spends
 * it once. A socket without a valid one is never accepted, so it can hear nothing.
 */

import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { TICKET_TTL_MS } from "../../durable-objects/user-sessions/provider-access/tickets";
import { freshUser, manager, newSession, ORIGIN } from "../sessions/helpers";

const APP = "https://app.example.com";

interface Tab {
  status: number;
  protocol: string | null;
  frames: string[];
  ws: WebSocket | null;
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves with the first frame whose type is `type`. */
  next(type: string): Promise<string>;
}

/** A socket to `userId`'s channel from `origin` (a page of another site by default), with the ticket as a subprotocol. */
async function connect(
  userId: string,
  ticket: string | null,
  options: { origin?: string; cookie?: string; query?: string; protocols?: string } = {},
): Promise<Tab> {
  const protocols = options.protocols ?? (ticket === null ? undefined : `gatehouse-live, gatehouse-ticket.${ticket}`);
  const res = await exports.default.fetch(`${ORIGIN}/parties/user-sessions/${userId}${options.query ?? ""}`, {
    headers: {
      Upgrade: "websocket",
      Origin: options.origin ?? APP,
      ...(options.cookie ? { Cookie: options.cookie } : {}),
      ...(protocols ? { "Sec-WebSocket-Protocol": protocols } : {}),
    },
  });
  const frames: string[] = [];
  const waiters: { type: string; resolve: (frame: string) => void }[] = [];
  const ws = res.webSocket;
  const protocol = res.headers.get("Sec-WebSocket-Protocol");
  if (!ws) {
    await res.body?.cancel();
    return {
      status: res.status,
      protocol,
      frames,
      ws,
      closed: Promise.resolve({ code: 0, reason: "" }),
      next: () => new Promise(() => {}),
    };
  }
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
    protocol,
    frames,
    ws,
    closed,
    next: (type) => {
      const seen = frames.find((f) => f.includes(`"type":"${type}"`));
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ type, resolve }));
    },
  };
}

const within = <T>(promise: Promise<T>, ms = 5_000) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timed out")), ms))]);

const objectOf = (user: string) => env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(user));

afterEach(() => setObjectClock(null));

describe("live tickets (a tab of another site)", () => {
  it("joins with a minted ticket in its upgrade, is told the subprotocol, then hears its session's revocation", async () => {
    const sessions = manager();
    const user = freshUser();
    const { sessionId, cookie } = await newSession(sessions, user);
    const minted = await sessions.liveTicket(cookie);
    expect(minted).toMatchObject({ userId: user, sessionId });
    expect(minted!.ticket).toMatch(/^[A-Za-z0-9_-]{43}\.\d+\.[A-Za-z0-9_-]{43}$/);

    const tab = await connect(user, minted!.ticket);
    expect(tab.status).toBe(101);
    expect(tab.protocol).toBe("gatehouse-live");
    expect(await within(tab.next("live.ready"))).toContain(sessionId);
    await sessions.revokeSession(sessionId);
    expect(await within(tab.next("session.revoked"))).toContain(sessionId);
    expect((await within(tab.closed)).code).toBe(4001);
  });

  it("a ticket works once: a second upgrade presenting it is refused without a socket", async () => {
    const sessions = manager();
    const user = freshUser();
    const { cookie } = await newSession(sessions, user);
    const { ticket } = (await sessions.liveTicket(cookie))!;
    const first = await connect(user, ticket);
    await within(first.next("live.ready"));
    const second = await connect(user, ticket);
    expect([second.status, second.ws]).toEqual([401, null]);
  });

  it("refuses an expired ticket, another user's, a tampered or unsigned one, and one in the URL", async () => {
    const sessions = manager();
    const [alice, bob] = [freshUser(), freshUser()];
    const a = await newSession(sessions, alice);
    const b = await newSession(sessions, bob);

    // Expired by the object's clock (the worker's clock still accepts it): the object refuses it.
    const stale = (await sessions.liveTicket(a.cookie))!.ticket;
    setObjectClock(() => Date.now() + TICKET_TTL_MS + 1);
    expect((await connect(alice, stale)).status).toBe(401);
    setObjectClock(null);

    const good = (await sessions.liveTicket(a.cookie))!.ticket;
    const [nonce, expiry, signature] = good.split(".") as [string, string, string];
    const bobs = (await sessions.liveTicket(b.cookie))!.ticket;
    const refused = [
      bobs, // signed for Bob, presented on Alice's channel
      nonce, // the object's nonce alone, unsigned
      `${nonce}.${Number(expiry) + 60_000}.${signature}`, // a later expiry than was signed
      `${"A".repeat(43)}.${expiry}.${signature}`, // another nonce under the same signature
      `${nonce}.1.${signature}`, // long expired
      `${nonce}.0${expiry}.${signature}`, // the signed expiry, spelled another way
      "A".repeat(43),
      "",
    ];
    for (const ticket of refused) {
      const tab = await connect(alice, ticket);
      expect([tab.status, tab.ws], ticket).toEqual([401, null]);
    }
    // In the URL, as a query: not a ticket at all (and `join=ticket` grants nothing).
    const inUrl = await connect(alice, null, { query: `?join=ticket&ticket=${good}` });
    expect([inUrl.status, inUrl.ws]).toEqual([401, null]);
    // The good ticket was not spent by any of that.
    expect((await connect(alice, good)).status).toBe(101);
  });

  it("`?join=ticket` chooses the ticket path even with the user's own cookie: without a ticket, no socket", async () => {
    const sessions = manager();
    const user = freshUser();
    const { cookie } = await newSession(sessions, user);
    for (const origin of [APP, ORIGIN]) {
      const tab = await connect(user, null, { origin, cookie, query: "?join=ticket&_pk=record" });
      expect([tab.status, tab.ws], origin).toEqual([401, null]);
    }
  });

  it("a ticket-joined tab never hears the security record, even one that names the record tag", async () => {
    const sessions = manager();
    const user = freshUser();
    const { cookie } = await newSession(sessions, user);
    const tab = await connect(user, (await sessions.liveTicket(cookie))!.ticket, { query: "?_pk=record" });
    await within(tab.next("live.ready"));
    await newSession(sessions, user, { ip: "203.0.113.9" }); // a sign-in: sessions.changed and a timeline event
    await within(tab.next("sessions.changed"));
    expect(tab.frames.join("")).not.toContain("timeline.appended");
    expect(tab.frames.join("")).not.toContain("203.0.113.9");
  });

  it("no ticket for a revoked session; a site outside AUTH_RETURN_ORIGINS cannot open a socket at all", async () => {
    const sessions = manager();
    const user = freshUser();
    const { sessionId, cookie } = await newSession(sessions, user);
    const early = (await sessions.liveTicket(cookie))!.ticket;
    await sessions.revokeSession(sessionId);
    expect(await sessions.liveTicket(cookie)).toBeNull();
    // A ticket minted before the revocation is spent for nothing: its session is over.
    expect((await connect(user, early)).status).toBe(401);
    expect((await connect(user, early, { origin: "https://evil.example" })).status).toBe(403);
  });

  it("an upgrade without a credential to a made-up user is refused by the route (the object is never asked)", async () => {
    const made = freshUser();
    for (const query of ["", "?join=ticket", "?join=ticket&_pk=record", "?_pk=pending"]) {
      const tab = await connect(made, null, { query });
      expect(tab.status).toBe(401);
    }
    const forged = await connect(made, `${"A".repeat(43)}.${Date.now() + 60_000}.${"B".repeat(43)}`);
    expect(forged.status).toBe(401);
    // That no object is created on disk is checked against wrangler dev (test/e2e/live-attack.test.ts).
  });
});

describe("sockets outlive no credential (the alarm)", () => {
  it("a socket whose session has expired is closed by the object's alarm, without a message from the client", async () => {
    const sessions = manager();
    const user = freshUser();
    const { cookie } = await newSession(sessions, user);
    const tab = await connect(user, (await sessions.liveTicket(cookie))!.ticket);
    await within(tab.next("live.ready"));
    // Past the session's absolute end, by the object's clock: the alarm (due at the earliest expiry) closes it.
    setObjectClock(() => Date.now() + 400 * 24 * 3600 * 1000);
    expect(await runDurableObjectAlarm(objectOf(user))).toBe(true);
    expect(await within(tab.closed)).toEqual({ code: 4003, reason: "session inactive" });
    expect(tab.frames.some((f) => f.includes("timeline.appended"))).toBe(false);
  });

  it("a socket that joined no session (accepted by any other path) is closed by the alarm", async () => {
    const sessions = manager();
    const user = freshUser();
    const { cookie } = await newSession(sessions, user);
    const joined = await connect(user, (await sessions.liveTicket(cookie))!.ticket);
    await within(joined.next("live.ready"));
    // A socket the object holds without an admitted join (as an earlier version's waiting tab was),
    // even one tagged with the record's old tag: made inside the object, where its I/O belongs.
    const open = (state: DurableObjectState) =>
      state.getWebSockets().filter((ws) => ws.readyState === WebSocket.OPEN && ws.deserializeAttachment() === null);
    await runInDurableObject(objectOf(user), (_instance, state) => {
      const { 1: server } = new WebSocketPair();
      state.acceptWebSocket(server, ["record"]);
      expect(open(state)).toHaveLength(1);
    });
    expect(await runDurableObjectAlarm(objectOf(user))).toBe(true);
    await runInDurableObject(objectOf(user), (_instance, state) => {
      expect(open(state)).toHaveLength(0);
    });
    expect(joined.frames.some((f) => f.includes("session.revoked"))).toBe(false);
    // The joined tab is still there.
    expect((await objectOf(user).stats()).sockets).toBe(1);
  });
});

describe("the live family's rate limits (issue 25)", () => {
  const up = (user: string, headers: Record<string, string>) =>
    exports.default.fetch(`${ORIGIN}/parties/user-sessions/${user}`, { headers: { Upgrade: "websocket", ...headers } });

  it("a page of another site cannot spend its visitor's budget; past the limit the person's tab gets 429, and no lockout lands on their timeline", async () => {
    const sessions = manager();
    const user = freshUser();
    const { cookie } = await newSession(sessions, user);
    const visitor = { "CF-Connecting-IP": "198.51.100.78" };
    // 601 handshakes a foreign page makes the visitor's browser send: refused for their origin, not counted.
    for (let i = 0; i < 601; i++) {
      const res = await up("user_x", { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site", ...visitor });
      expect(res.status).toBe(403);
    }
    const own = await up(user, { Origin: ORIGIN, Cookie: cookie, "Sec-Fetch-Site": "same-origin", ...visitor });
    expect(own.status).toBe(101);
    own.webSocket?.accept();
    own.webSocket?.close(1000, "done");
    // The address's own 600 (counted from any allowed page): then 429, whoever asks.
    const busy = { "CF-Connecting-IP": "198.51.100.79" };
    let admitted = 0;
    let refused: Response | null = null;
    while (!refused && admitted <= 1_200) {
      const res = await up(freshUser(), { Origin: ORIGIN, ...busy });
      if (res.status === 429) refused = res;
      else admitted++;
    }
    expect(refused?.status).toBe(429);
    expect(admitted).toBeGreaterThanOrEqual(600);
    const late = await up(user, { Origin: ORIGIN, Cookie: cookie, "Sec-Fetch-Site": "same-origin", ...busy });
    expect(late.status).toBe(429);
    // An automatic reconnect refused by the limit is not the person's own attempt: nothing on their record.
    const types = (await sessions.timeline(user)).events.map((e) => e.type);
    expect(types).not.toContain("ratelimit.lockout");
  }, 120_000); // counts about 1,800 requests: bounded by count, so a busy machine only makes it slower
});
