import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { freshUser, manager, newSession, ORIGIN, openTab, withTimeout } from "./helpers";

const admin = (method: string, path: string, token: string | null = env.ADMIN_API_TOKEN) =>
  exports.default.fetch(`${ORIGIN}${path}`, {
    method,
    headers: token === null ? {} : { Authorization: `Bearer ${token}` },
  });

describe("admin endpoint", () => {
  it("needs a bearer token: missing → 401, wrong → 403", async () => {
    const user = freshUser();
    const missing = await admin("GET", `/admin/users/${user}/sessions`, null);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("WWW-Authenticate")).toContain("Bearer");
    expect((await admin("GET", `/admin/users/${user}/sessions`, "wrong-token")).status).toBe(403);
    expect((await admin("GET", `/admin/users/${user}/sessions`, `${env.ADMIN_API_TOKEN}x`)).status).toBe(403);
  });

  it("every admin API route needs the token, and a path dressed as the console's does not slip past it", async () => {
    const user = freshUser();
    const session = "a".repeat(64);
    const routes: [string, string][] = [
      ["GET", `/admin/users/${user}/sessions`],
      ["POST", `/admin/users/${user}/sessions/revoke`],
      ["DELETE", `/admin/sessions/${session}`],
      ["GET", `/admin/users/${user}/timeline`],
      ["GET", `/admin/users/${user}/devices`],
      ["GET", `/admin/receipts/rcpt.u.${user}.1`],
      ["GET", "/admin/organizations/org_1/kill-switch"],
      ["POST", "/admin/organizations/org_1/kill-switch"],
      ["POST", "/admin/organizations/org_1/kill-switch/lift"],
      ["GET", "/admin/organizations/org_1/policy"],
      ["POST", "/admin/organizations/org_1/policy"],
      ["POST", "/admin/organizations/org_1/policy/clear"],
    ];
    for (const [method, path] of routes) {
      expect((await admin(method, path, null)).status, `${method} ${path}`).toBe(401);
      expect((await admin(method, path, "wrong-token")).status, `${method} ${path}`).toBe(403);
    }
    // Second pair of eyes (issue 28): encoded paths that read as console paths reach no API route.
    for (const path of [`/admin/%63onsole/../users/${user}/sessions`, `/admin/console%2F..%2Fusers/${user}/sessions`]) {
      const res = await admin("GET", path, null);
      expect(res.status, path).not.toBe(200);
      expect(res.status, path).toBeLessThan(500);
    }
  });

  it("lists a user's sessions", async () => {
    const sessions = manager();
    const user = freshUser();
    const a = await newSession(sessions, user, { userAgent: "Safari" });
    const res = await admin("GET", `/admin/users/${user}/sessions`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { userId: string; sessions: { id: string; userAgent: string }[] };
    expect(body.userId).toBe(user);
    expect(body.sessions.map((s) => s.id)).toEqual([a.sessionId]);
    expect(body.sessions[0]!.userAgent).toBe("Safari");
  });

  it("revokes one session and reaches its open tab", async () => {
    const sessions = manager();
    const user = freshUser();
    const a = await newSession(sessions, user);
    const tab = await openTab(user, a.cookie);
    const res = await admin("DELETE", `/admin/sessions/${a.sessionId}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ sessionId: a.sessionId, revoked: 1, socketsClosed: 1 });
    expect((await withTimeout(tab.closed)).code).toBe(4001);
    expect((await admin("DELETE", `/admin/sessions/${a.sessionId}`)).status).toBe(404);
  });

  it("revokes all of a user's sessions", async () => {
    const sessions = manager();
    const user = freshUser();
    await newSession(sessions, user);
    await newSession(sessions, user);
    const res = await admin("POST", `/admin/users/${user}/sessions/revoke`);
    expect(await res.json()).toMatchObject({ userId: user, revoked: 2 });
    expect(await sessions.listSessions(user)).toEqual([]);
  });

  it("answers 400 JSON for bad ids", async () => {
    const bad = await admin("DELETE", "/admin/sessions/not-a-session-id");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "invalid_session_id" });
    expect((await admin("GET", "/admin/users/a%20b/sessions")).status).toBe(400);
    expect((await admin("POST", `/admin/users/${"x".repeat(200)}/sessions/revoke`)).status).toBe(400);
  });
});
