/**
 * Issue 14 finding 2: the browser's headers must not reach the session object. A client-sent
 * `x-partykit-props` (or any `x-partykit-*`) header used to be read by partyserver, whose error,
 * stack trace included, came back over the WebSocket. The live route now builds the request the
 * object sees; the object itself ignores partyserver's control headers and never sends a stack.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
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
  ws.addEventListener("message", (e) => frames.push(String(e.data)));
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
