/**
 * Issue 14 finding 2: the browser's headers must not reach the session object. A client-sent
 * `x-partykit-props` (or any `x-partykit-*`) header used to be read by partyserver, whose error,
 * stack trace included, came back over the WebSocket. The live route now builds the request the
 * object sees; the object itself ignores partyserver's control headers and never sends a stack.
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { UserSessions } from "../../durable-objects/user-sessions";
import { routeLiveChannel } from "../../workers/auth/live/route";
import { freshUser, manager, newSession, ORIGIN } from "../sessions/helpers";

/** Traces of internals in anything a client receives. */
const LEAK = /\bat .*:\d+:\d+|\.m?[jt]s\b|node_modules|Error:|SyntaxError|partyserver|x-partykit/i;

interface RawTab {
  status: number;
  frames: string[];
  closed: Promise<{ code: number; reason: string }>;
  ws: WebSocket | null;
}

/** Opens a socket and records every frame and the close, without assuming their shape. */
async function open(response: Promise<Response>): Promise<RawTab> {
  const res = await response;
  const frames: string[] = [];
  const ws = res.webSocket;
  if (!ws)
    return { status: res.status, frames: [await res.text()], closed: Promise.resolve({ code: 0, reason: "" }), ws };
  ws.accept();
  ws.addEventListener("message", (e) => {
    frames.push(String(e.data));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason })),
  );
  return { status: res.status, frames, closed, ws };
}

/** Sends ping and waits for the pong frame (the channel works). */
async function pong(tab: RawTab): Promise<boolean> {
  if (!tab.ws) return false;
  const got = new Promise<boolean>((resolve) => {
    tab.ws!.addEventListener("message", (e) => {
      if (String(e.data).includes('"pong"')) resolve(true);
    });
    tab.closed.then(() => resolve(false));
  });
  tab.ws.send("ping");
  return got;
}

const objectOf = (name: string): DurableObjectStub<UserSessions> =>
  env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(name));

const HOSTILE: Record<string, string>[] = [
  { "x-partykit-props": "{not json" },
  { "x-partykit-props": "eyJhZG1pbiI6dHJ1ZX0" },
  { "x-partykit-room": "user_someone_else" },
  { "x-partykit-namespace": "rate-limiter" },
  { "x-partykit-jurisdiction": "eu" },
  { "x-gatehouse-session": "f".repeat(64) },
];

describe("finding 2: the live channel sees only what the worker decided", () => {
  it.each(HOSTILE)("a client header %o changes nothing and leaks nothing", async (hostile) => {
    const sessions = manager();
    const user = freshUser();
    const { cookie } = await newSession(sessions, user);
    const tab = await open(
      exports.default.fetch(`${ORIGIN}/parties/user-sessions/${user}`, {
        headers: { Upgrade: "websocket", Origin: ORIGIN, Cookie: cookie, ...hostile },
      }),
    );
    expect(tab.status).toBe(101);
    // The channel works as the person's own channel: ping answers, and it stays open.
    expect(await pong(tab)).toBe(true);
    // It is this user's object that holds the socket, whatever room the header named.
    expect((await objectOf(user).stats()).sockets).toBe(1);
    expect((await objectOf("user_someone_else").stats()).sockets).toBe(0);
    for (const frame of tab.frames) expect(frame).not.toMatch(LEAK);
    tab.ws!.close(1000, "done");
    const { reason } = await tab.closed;
    expect(reason).not.toMatch(LEAK);
  });

  it("the object itself ignores partyserver's control headers and never answers a stack", async () => {
    const user = freshUser();
    const stub = env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(user));
    for (const hostile of HOSTILE) {
      const tab = await open(
        stub.fetch(`${ORIGIN}/parties/user-sessions/${user}`, { headers: { Upgrade: "websocket", ...hostile } }),
      );
      const { code, reason } = await tab.closed;
      // No verified session header: the object closes the socket, with words of its own.
      if (tab.ws) expect(code).not.toBe(1011);
      expect(reason).not.toMatch(LEAK);
      for (const frame of tab.frames) expect(frame).not.toMatch(LEAK);
    }
    const plain = await stub.fetch(`${ORIGIN}/anything`, { headers: { "x-partykit-props": "{not json" } });
    expect(plain.status).toBe(404);
    expect(await plain.text()).not.toMatch(LEAK);
  });
});

describe("finding 2: a failure inside the object's socket setup reaches no client", () => {
  // partyserver answers a throw during setup with `{"error": err.stack}` over the socket (or the
  // stack as a 500 body). These provoke two such throws with the real runtime and the real class.
  it("an object without a name refuses an upgrade before partyserver, and answers a plain request a generic 500", async () => {
    const unnamed = env.USER_SESSIONS.get(env.USER_SESSIONS.newUniqueId());
    const tab = await open(unnamed.fetch(`${ORIGIN}/parties/user-sessions/x`, { headers: { Upgrade: "websocket" } }));
    expect([tab.status, tab.ws]).toEqual([401, null]);
    expect(tab.frames.join("")).not.toMatch(LEAK);

    const plain = await unnamed.fetch(`${ORIGIN}/parties/user-sessions/x`);
    expect(plain.status).toBe(500);
    expect(await plain.json()).toEqual({ error: "internal_error", message: "Internal Server Error" });
  });

  it("a throw inside partyserver's setup of an admitted socket closes it with 1011 and nothing else", async () => {
    const sessions = manager();
    const user = freshUser();
    const { sessionId } = await newSession(sessions, user);
    // The real object, with its tag hook made to throw as workerd does for a tag it refuses.
    await runInDurableObject(objectOf(user), (instance) => {
      instance.getConnectionTags = () => {
        throw new Error("A connection tag must not exceed 256 characters at tags.ts:1:2");
      };
    });
    const tab = await open(
      objectOf(user).fetch(`${ORIGIN}/parties/user-sessions/${user}`, {
        headers: { Upgrade: "websocket", "x-gatehouse-session": sessionId },
      }),
    );
    expect(tab.status).toBe(101);
    expect(await tab.closed).toEqual({ code: 1011, reason: "internal error" });
    expect(tab.frames).toEqual([]);
    expect((await objectOf(user).stats()).sockets).toBe(0);
  });
});

describe("the security record over the live channel (issue 17)", () => {
  it("reaches tabs of the auth worker's own pages only; a consuming app's tab hears session changes, not IPs or places", async () => {
    const sessions = manager();
    const user = freshUser();
    const { cookie } = await newSession(sessions, user);
    // The route as issue 18's cross-origin tabs will use it: consuming apps' origins allowed.
    const connect = (origin: string, extra: Record<string, string> = {}) =>
      open(
        routeLiveChannel(
          new Request(`${ORIGIN}/parties/user-sessions/${user}`, {
            headers: { Upgrade: "websocket", Origin: origin, Cookie: cookie, ...extra },
          }),
          env.USER_SESSIONS,
          sessions,
          { ownOrigin: ORIGIN, allowedOrigins: ["https://app.example.com"] },
        ),
      );
    const own = await connect(ORIGIN);
    // An allowed return origin, even one that claims the record header for itself.
    const app = await connect("https://app.example.com", { "x-gatehouse-record": "1" });
    expect([own.status, app.status]).toEqual([101, 101]);
    await newSession(sessions, user, {
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0",
      ip: "203.0.113.50",
    });
    // Messages are answered in order: after the pong, everything the sign-in sent has arrived.
    expect(await pong(own)).toBe(true);
    expect(await pong(app)).toBe(true);
    const kinds = (tab: RawTab) => tab.frames.map((f) => /"type":"([a-z.]+)"/.exec(f)?.[1]);
    expect(kinds(own)).toContain("timeline.appended");
    expect(own.frames.join("")).toContain("203.0.113.50");
    expect(kinds(app)).toContain("sessions.changed");
    expect(kinds(app)).not.toContain("timeline.appended");
    expect(app.frames.join("")).not.toContain("203.0.113.50");
  });
});
