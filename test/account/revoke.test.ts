import { CLOSE_SESSION_REVOKED } from "gatehouse-workers/durable-objects";
import { describe, expect, it } from "vitest";
import {
  call,
  freshUser,
  kvHas,
  manager,
  openPage,
  openTab,
  postForm,
  postJson,
  signIn,
  staysOpen,
  stubOf,
  withTimeout,
} from "./helpers";

const stillSignedIn = async (cookie: string) =>
  (await call("/account/sessions", { headers: { Cookie: cookie, Accept: "application/json" } })).status === 200;

describe("POST /account/sessions/:sessionId/revoke", () => {
  it("signs out one of my other sessions: its record and its tab go, my tab stays and is told", async () => {
    const user = freshUser();
    const me = await signIn(user);
    const other = await signIn(user);
    const myTab = await openTab(me);
    const otherTab = await openTab(other);
    const page = await openPage(me);

    const res = await postForm(`/account/sessions/${other.sessionId}/revoke`, me, page);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/account/sessions?signed_out=1");
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");

    expect(await withTimeout(otherTab.next("session.revoked"))).toMatchObject({
      type: "session.revoked",
      sessionId: other.sessionId,
    });
    expect((await withTimeout(otherTab.closed)).code).toBe(CLOSE_SESSION_REVOKED);
    expect(await kvHas(other.sessionId)).toBe(false);
    expect(await stillSignedIn(other.cookie)).toBe(false);

    // My own tab stays open and hears that the list changed (the page re-renders from it).
    expect((await withTimeout(myTab.next("sessions.changed"))).type).toBe("sessions.changed");
    expect(await staysOpen(myTab)).toBe("open");
    expect(myTab.messages.some((m) => m.type === "session.revoked")).toBe(false);
    expect(await kvHas(me.sessionId)).toBe(true);

    const after = await openPage(me, res.headers.get("Location")!);
    expect(after.html).toContain("Signed out 1 session.");
    expect(after.items).toEqual([{ id: me.sessionId, current: true }]);
  });

  it("answers JSON to a JSON client (X-CSRF-Token header)", async () => {
    const user = freshUser();
    const me = await signIn(user);
    const other = await signIn(user);
    const otherTab = await openTab(other);
    const page = await openPage(me);
    const res = await postJson(`/account/sessions/${other.sessionId}/revoke`, me, page);
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    expect(await res.json()).toEqual({
      sessionId: other.sessionId,
      receiptId: expect.stringMatching(new RegExp(`^rcpt\\.u\\.${user}\\.\\d+$`)),
      revoked: 1,
      socketsClosed: 1,
      pendingKvDeletes: 0,
      refusedAfterMs: expect.any(Number),
      signedOut: false,
    });
    expect((await withTimeout(otherTab.closed)).code).toBe(CLOSE_SESSION_REVOKED);
  });

  it("signing out this device's own session is a logout: cookie cleared, tab told, back to /", async () => {
    const user = freshUser();
    const me = await signIn(user);
    const other = await signIn(user);
    const myTab = await openTab(me);
    const page = await openPage(me);
    const res = await postForm(`/account/sessions/${me.sessionId}/revoke`, me, page);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/");
    const cleared = res.headers.getSetCookie().find((c) => c.startsWith("__Host-gh_session="));
    expect(cleared).toMatch(/Max-Age=0/i);
    expect(await withTimeout(myTab.next("session.revoked"))).toMatchObject({ sessionId: me.sessionId });
    expect((await withTimeout(myTab.closed)).code).toBe(CLOSE_SESSION_REVOKED);
    expect(await kvHas(me.sessionId)).toBe(false);
    expect(await stillSignedIn(me.cookie)).toBe(false);
    expect(await stillSignedIn(other.cookie)).toBe(true);
  });

  it("signing out this device as a JSON client answers signedOut: true and clears the cookie", async () => {
    const me = await signIn(freshUser());
    const page = await openPage(me);
    const res = await postJson(`/account/sessions/${me.sessionId}/revoke`, me, page);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ sessionId: me.sessionId, revoked: 1, signedOut: true });
    expect(res.headers.getSetCookie().some((c) => /^__Host-gh_session=;.*Max-Age=0/i.test(c))).toBe(true);
    expect(await stillSignedIn(me.cookie)).toBe(false);
  });

  it("someone else's session id answers 404, exactly like an unknown id, and revokes nothing", async () => {
    const mallory = await signIn(freshUser());
    const victim = await signIn(freshUser());
    const victimTab = await openTab(victim);
    const page = await openPage(mallory);

    const theirs = await postForm(`/account/sessions/${victim.sessionId}/revoke`, mallory, page);
    const unknown = await postForm(`/account/sessions/${"0".repeat(64)}/revoke`, mallory, page);
    expect(theirs.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(await theirs.text()).toBe(await unknown.text());

    const json = await postJson(`/account/sessions/${victim.sessionId}/revoke`, mallory, page);
    expect(json.status).toBe(404);
    expect(await json.json()).toMatchObject({ error: "session_not_found" });

    expect(await staysOpen(victimTab)).toBe("open");
    expect(await kvHas(victim.sessionId)).toBe(true);
    expect(await stillSignedIn(victim.cookie)).toBe(true);
    expect(await stubOf(victim.userId).stats()).toMatchObject({ sessions: 1, tombstones: 0 });
    // Nor did the attempt leave a tombstone for that id in the attacker's object.
    expect(await stubOf(mallory.userId).stats()).toMatchObject({ sessions: 1, tombstones: 0 });
  });

  it.each([["not-a-session-id"], ["A".repeat(64)], ["a".repeat(63)], [`${"a".repeat(64)}%20`]])(
    "answers 400 to the bad id %j (page and JSON)",
    async (id) => {
      const me = await signIn(freshUser());
      const page = await openPage(me);
      const form = await postForm(`/account/sessions/${id}/revoke`, me, page);
      expect(form.status).toBe(400);
      expect(form.headers.get("Content-Type")).toContain("text/html");
      expect(await form.text()).toContain("invalid_session_id");
      const json = await postJson(`/account/sessions/${id}/revoke`, me, page);
      expect(json.status).toBe(400);
      expect(await json.json()).toMatchObject({ error: "invalid_session_id" });
    },
  );
});

describe("POST /account/sessions/revoke-others", () => {
  it("signs out every other session and tab; this one stays signed in", async () => {
    const user = freshUser();
    const me = await signIn(user);
    const others = [await signIn(user), await signIn(user)];
    const myTab = await openTab(me);
    const otherTabs = await Promise.all(others.map(openTab));
    const page = await openPage(me);

    const res = await postForm("/account/sessions/revoke-others", me, page);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/account/sessions?signed_out=2");
    for (const tab of otherTabs) expect((await withTimeout(tab.closed)).code).toBe(CLOSE_SESSION_REVOKED);
    for (const s of others) expect(await kvHas(s.sessionId)).toBe(false);
    expect(await staysOpen(myTab)).toBe("open");
    expect(await stillSignedIn(me.cookie)).toBe(true);
    expect((await manager().listSessions(user)).map((s) => s.id)).toEqual([me.sessionId]);
  });

  it("answers JSON to a JSON client", async () => {
    const user = freshUser();
    const me = await signIn(user);
    await signIn(user);
    const page = await openPage(me);
    const res = await postJson("/account/sessions/revoke-others", me, page);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      receiptId: expect.stringMatching(/^rcpt\.u\./),
      revoked: 1,
      socketsClosed: 0,
      pendingKvDeletes: 0,
      refusedAfterMs: expect.any(Number),
      signedOut: false,
    });
    expect(await stillSignedIn(me.cookie)).toBe(true);
  });
});

describe("CSRF protection", () => {
  it("refuses a form without the token (403 page) and revokes nothing", async () => {
    const user = freshUser();
    const me = await signIn(user);
    const other = await signIn(user);
    const page = await openPage(me);
    for (const path of [`/account/sessions/${other.sessionId}/revoke`, "/account/sessions/revoke-others"]) {
      const res = await postForm(path, me, page, { token: null });
      expect(res.status).toBe(403);
      expect(res.headers.get("Content-Type")).toContain("text/html");
      expect(res.headers.get("Cache-Control")).toBe("private, no-store");
      const html = await res.text();
      expect(html).toContain("Request refused");
      expect(html).toContain("csrf_failed");
    }
    expect(await kvHas(other.sessionId)).toBe(true);
    expect(await stillSignedIn(other.cookie)).toBe(true);
  });

  it("refuses a wrong token, a token of another session, and a cross-site post", async () => {
    const user = freshUser();
    const me = await signIn(user);
    const other = await signIn(user);
    const page = await openPage(me);
    const otherPage = await openPage(other);
    const path = `/account/sessions/${other.sessionId}/revoke`;
    expect((await postForm(path, me, page, { token: `${page.csrf}x` })).status).toBe(403);
    // The other session's token and cookie pair is valid, but bound to that session, not to mine.
    expect((await postForm(path, me, otherPage)).status).toBe(403);
    expect((await postForm(path, me, page, { headers: { "Sec-Fetch-Site": "cross-site" } })).status).toBe(403);
    expect((await postForm(path, me, page, { headers: { Origin: "https://evil.example" } })).status).toBe(403);
    expect(await kvHas(other.sessionId)).toBe(true);
  });

  it("refuses a JSON client without X-CSRF-Token with 403 JSON", async () => {
    const user = freshUser();
    const me = await signIn(user);
    await signIn(user);
    const page = await openPage(me);
    const res = await call("/account/sessions/revoke-others", {
      method: "POST",
      headers: {
        Cookie: `${me.cookie}; ${page.csrfCookie}`,
        Accept: "application/json",
        Origin: "https://auth.example.com",
      },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: "csrf_failed" });
    expect((await manager().listSessions(user)).length).toBe(2);
  });
});
