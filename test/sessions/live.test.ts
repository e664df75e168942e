import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { freshUser, manager, newSession, ORIGIN, openTab, staysOpen, withTimeout } from "./helpers";

const upgrade = (path: string, headers: Record<string, string> = {}) =>
  exports.default.fetch(`${ORIGIN}${path}`, { headers: { Upgrade: "websocket", Origin: ORIGIN, ...headers } });

describe("the live channel (/parties/user-sessions/<userId>)", () => {
  it("accepts an upgrade carrying that user's session cookie and answers ping", async () => {
    const sessions = manager();
    const user = freshUser();
    const s = await newSession(sessions, user);
    const tab = await openTab(user, s.cookie);
    tab.ws.send("ping");
    expect((await withTimeout(tab.next("pong"))).type).toBe("pong");
    expect(await staysOpen(tab)).toBe("open");
  });

  it("tells open tabs when the user's session list changes", async () => {
    const sessions = manager();
    const user = freshUser();
    const s = await newSession(sessions, user);
    const tab = await openTab(user, s.cookie);
    await newSession(sessions, user);
    expect((await withTimeout(tab.next("sessions.changed"))).type).toBe("sessions.changed");
  });

  it("refuses an upgrade without a session (401)", async () => {
    const res = await upgrade(`/parties/user-sessions/${freshUser()}`);
    expect(res.status).toBe(401);
    expect(res.webSocket).toBeNull();
    expect(await res.json()).toMatchObject({ error: "unauthenticated" });
  });

  it("refuses an upgrade with another user's session (403)", async () => {
    const sessions = manager();
    const mallory = freshUser();
    const s = await newSession(sessions, mallory);
    const res = await upgrade(`/parties/user-sessions/${freshUser()}`, { Cookie: s.cookie });
    expect(res.status).toBe(403);
    expect(res.webSocket).toBeNull();
  });

  it("refuses an upgrade with a revoked session", async () => {
    const sessions = manager();
    const user = freshUser();
    const s = await newSession(sessions, user);
    await sessions.revokeSession(s.sessionId);
    expect((await upgrade(`/parties/user-sessions/${user}`, { Cookie: s.cookie })).status).toBe(401);
  });

  it("refuses a cross-origin upgrade (cross-site WebSocket hijacking)", async () => {
    const sessions = manager();
    const user = freshUser();
    const s = await newSession(sessions, user);
    const res = await upgrade(`/parties/user-sessions/${user}`, { Cookie: s.cookie, Origin: "https://evil.example" });
    expect(res.status).toBe(403);
  });

  it("ignores a forged session header from the browser", async () => {
    const sessions = manager();
    const user = freshUser();
    const real = await newSession(sessions, user);
    const other = await newSession(sessions, user);
    // The browser claims to be `other`; the worker overwrites the header with the cookie's session.
    const tab = await openTab(user, real.cookie, { "x-gatehouse-session": other.sessionId });
    await sessions.revokeSession(other.sessionId);
    expect(await staysOpen(tab)).toBe("open");
    await sessions.revokeSession(real.sessionId);
    expect((await withTimeout(tab.closed)).code).toBe(4001);
  });

  it.each([
    "/parties/rate-limiter-do/some-key",
    "/parties/rate-limiter/some-key",
    "/parties/container/x",
    "/parties/USER_SESSIONS/x",
    "/parties/user-sessions/x/extra",
  ])("answers 404 for %s: only the session object is routable", async (path) => {
    const res = await upgrade(path);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "not_found" });
  });

  it("answers 426 to a plain request and 400 to a bad user id", async () => {
    const plain = await exports.default.fetch(`${ORIGIN}/parties/user-sessions/${freshUser()}`);
    expect(plain.status).toBe(426);
    expect((await upgrade("/parties/user-sessions/bad%20id")).status).toBe(400);
  });
});
