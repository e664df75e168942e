import type { SecurityEvent } from "gatehouse-workers/client";
import { CLOSE_SESSION_REVOKED } from "gatehouse-workers/durable-objects";
import { describe, expect, it } from "vitest";
import {
  call,
  freshUser,
  kvHas,
  openPage,
  openTab,
  postForm,
  postJson,
  signIn,
  staysOpen,
  stubOf,
  withTimeout,
} from "./helpers";

const FIREFOX_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:140.0) Gecko/20100101 Firefox/140.0";
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
const LISBON = { country: "PT", region: "Lisbon", city: "Lisbon", colo: "LIS" };
const OSAKA = { country: "JP", region: "Osaka", city: "Osaka", colo: "KIX" };

interface ActivityJson {
  events: SecurityEvent[];
  nextCursor: string | null;
}

const activityJson = async (cookie: string, query = "") => {
  const res = await call(`/account/activity${query}`, { headers: { Cookie: cookie, Accept: "application/json" } });
  return { res, body: (await res.json()) as ActivityJson & { error?: string } };
};

describe("new devices on /account/sessions", () => {
  it("highlights another session whose sign-in was a new device, with 'this wasn't me'; a known device is not", async () => {
    const user = freshUser();
    const phone = await signIn(user, { userAgent: SAFARI_IPHONE, location: OSAKA });
    // The same browser and system in the same place: a version update is the same device.
    const laptop = await signIn(user, { userAgent: FIREFOX_MAC, location: LISBON });
    const laptopAgain = await signIn(user, {
      userAgent: FIREFOX_MAC.replace("140.0", "141.0"),
      location: LISBON,
    });
    const page = await openPage(laptopAgain);
    const item = (id: string) => new RegExp(`<li data-session-id="${id}"[^>]*>`).exec(page.html)?.[0] ?? "";
    expect(item(phone.sessionId)).toContain('data-new-device="true"');
    expect(item(laptop.sessionId)).toContain('data-new-device="true"');
    expect(item(laptopAgain.sessionId)).not.toContain("data-new-device");
    expect(page.html).toContain("Osaka, JP (KIX)");
    // Each new device that is not this tab's carries the form; the repeat sign-in carries none.
    expect(page.forms.filter((f) => f.action === "/account/sessions/revoke-all")).toHaveLength(2);
    const json = await call("/account/sessions", {
      headers: { Cookie: laptopAgain.cookie, Accept: "application/json" },
    });
    const body = (await json.json()) as { sessions: { id: string; newDevice: boolean; place: string }[] };
    expect(Object.fromEntries(body.sessions.map((s) => [s.id, [s.newDevice, s.place]]))).toEqual({
      [phone.sessionId]: [true, "Osaka, JP (KIX)"],
      [laptop.sessionId]: [true, "Lisbon, PT (LIS)"],
      [laptopAgain.sessionId]: [false, "Lisbon, PT (LIS)"],
    });
  });
});

describe("POST /account/sessions/revoke-all ('this wasn't me')", () => {
  it("signs out every session, this one too: records, tabs, cookie; the timeline says who", async () => {
    const user = freshUser();
    const me = await signIn(user, { userAgent: FIREFOX_MAC, location: LISBON });
    const intruder = await signIn(user, { userAgent: SAFARI_IPHONE, location: OSAKA });
    const intruderTab = await openTab(intruder);
    const page = await openPage(me);

    const res = await postForm("/account/sessions/revoke-all", me, page);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/");
    expect(res.headers.getSetCookie().some((c) => /^__Host-gh_session=;/.test(c) || /Max-Age=0/.test(c))).toBe(true);
    expect((await withTimeout(intruderTab.closed)).code).toBe(CLOSE_SESSION_REVOKED);
    expect(await kvHas(me.sessionId)).toBe(false);
    expect(await kvHas(intruder.sessionId)).toBe(false);

    // The record of it, read by a fresh sign-in: two sessions revoked, by the person.
    const again = await signIn(user, { userAgent: FIREFOX_MAC, location: LISBON });
    const { body } = await activityJson(again.cookie);
    const revoked = body.events.filter((e) => e.type === "session.revoked");
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({ actor: { kind: "user" }, detail: { sessions: 2 } });
  });

  it("is refused without the CSRF token, and nothing is signed out", async () => {
    const user = freshUser();
    const me = await signIn(user);
    const page = await openPage(me);
    const res = await postForm("/account/sessions/revoke-all", me, page, { token: null });
    expect(res.status).toBe(403);
    expect(await kvHas(me.sessionId)).toBe(true);
  });

  it("answers JSON to a JSON client", async () => {
    const user = freshUser();
    const me = await signIn(user);
    await signIn(user);
    const page = await openPage(me);
    const res = await postJson("/account/sessions/revoke-all", me, page);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      revoked: 2,
      signedOut: true,
      receiptId: expect.stringMatching(/^rcpt\.u\./),
    });
  });
});

describe("GET /account/activity", () => {
  it("shows the timeline newest first, in words, with device, place and the 'this wasn't me' form", async () => {
    const user = freshUser();
    const me = await signIn(user, { userAgent: FIREFOX_MAC, ip: "203.0.113.7", location: LISBON });
    const other = await signIn(user, { userAgent: SAFARI_IPHONE, location: OSAKA });
    const page = await openPage(me, "/account/activity");
    expect(page.res.status).toBe(200);
    expect(page.res.headers.get("Cache-Control")).toBe("private, no-store");
    expect(page.res.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
    expect(page.html).toContain('data-view="activity"');
    expect(page.html).toContain('id="activity" data-live="true"');
    const types = [...page.html.matchAll(/data-type="([^"]+)"/g)].map((m) => m[1]);
    expect(types).toEqual(["session.new_device", "session.signed_in", "session.new_device", "session.signed_in"]);
    expect(page.html).toContain("Signed in from a new device");
    expect(page.html).toContain("Safari 18 on iOS");
    expect(page.html).toContain("Osaka, JP (KIX)");
    expect(page.html).toContain("IP 203.0.113.7");
    expect(page.forms.filter((f) => f.action === "/account/sessions/revoke-all")).toHaveLength(2);
    for (const form of page.forms) expect(form.csrf).toBe(page.csrf);
    expect(page.html).not.toContain("Older activity");

    // Signing the other one out shows up with who did it.
    await postForm(`/account/sessions/${other.sessionId}/revoke`, me, page);
    const after = await openPage(me, "/account/activity");
    expect(after.html).toContain("A session was signed out by you");
  });

  it("a deactivation in the organization's directory reads as one, once the person is back", async () => {
    const user = freshUser();
    await signIn(user, { userAgent: FIREFOX_MAC, location: LISBON });
    await signIn(user, { userAgent: SAFARI_IPHONE, location: OSAKA });
    // What POST /webhooks/identity applies for a matched `dsync.user.updated` at state inactive.
    const id = `event_${Date.now().toString(36)}_${crypto.randomUUID().slice(0, 8)}`;
    // Both sessions were signed in to org_acme (`signIn`'s default), the directory's organization.
    await stubOf(user).applyProviderEvent({
      id,
      type: "dsync.user.updated",
      occurredAt: Date.now(),
      organizationId: "org_acme",
    });
    const back = await signIn(user, { userAgent: FIREFOX_MAC, location: LISBON });
    const page = await openPage(back, "/account/activity");
    expect(page.html).toContain(
      "Your account was deactivated in your organization&#39;s directory: 2 sessions were signed out",
    );
  });

  it("pages by cursor (25 a page), as JSON too; an older page is not live and links back", async () => {
    const user = freshUser();
    const me = await signIn(user, { userAgent: FIREFOX_MAC, location: LISBON });
    // 29 more sign-ins from the same device: 30 sign-ins and 1 new device, 31 events.
    for (let i = 0; i < 29; i++) await signIn(user, { userAgent: FIREFOX_MAC, location: LISBON });
    const first = await activityJson(me.cookie);
    expect(first.res.status).toBe(200);
    expect(first.body.events).toHaveLength(25);
    expect(first.body.nextCursor).toMatch(/^c[0-9a-z]+$/);
    const second = await activityJson(me.cookie, `?cursor=${first.body.nextCursor}`);
    expect(second.body.events).toHaveLength(6);
    expect(second.body.nextCursor).toBeNull();
    const all = [...first.body.events, ...second.body.events];
    expect(new Set(all.map((e) => e.id)).size).toBe(31);
    expect(all.map((e) => e.seq)).toEqual([...all.map((e) => e.seq)].sort((a, b) => b - a));
    expect(all.filter((e) => e.type === "session.new_device")).toHaveLength(1);

    const html = await openPage(me, `/account/activity?cursor=${first.body.nextCursor}`);
    expect(html.html).not.toContain("data-live");
    expect(html.html).toContain('href="/account/activity">Latest activity');
    const firstHtml = await openPage(me, "/account/activity");
    expect(firstHtml.html).toContain(`href="/account/activity?cursor=${first.body.nextCursor}" rel="next"`);
  });

  it("refuses a cursor it did not issue with 400 invalid_cursor (JSON and HTML)", async () => {
    const me = await signIn(freshUser());
    for (const cursor of ["x1", "c", "c!!", "c1234567890123", "%00"]) {
      const { res, body } = await activityJson(me.cookie, `?cursor=${cursor}`);
      expect(res.status, cursor).toBe(400);
      expect(body.error).toBe("invalid_cursor");
    }
    const html = await call("/account/activity?cursor=nope", { headers: { Cookie: me.cookie, Accept: "text/html" } });
    expect(html.status).toBe(400);
    expect(html.headers.get("Content-Type")).toContain("text/html");
  });

  it("needs a session: a browser goes to sign in, a JSON client gets 401", async () => {
    const page = await call("/account/activity", { headers: { Accept: "text/html" } });
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toBe("/auth/login?return_to=%2Faccount%2Factivity");
    const json = await call("/account/activity", { headers: { Accept: "application/json" } });
    expect(json.status).toBe(401);
  });

  it("open tabs hear each new event live (timeline.appended) with its device and place", async () => {
    const user = freshUser();
    const me = await signIn(user, { userAgent: FIREFOX_MAC, location: LISBON });
    const tab = await openTab(me);
    const other = await signIn(user, { userAgent: SAFARI_IPHONE, location: OSAKA });
    // The object answers in order: once the ping is answered, everything the sign-in sent has arrived.
    expect(await staysOpen(tab)).toBe("open");
    const seen = tab.messages.flatMap((m) => (m.type === "timeline.appended" ? [m.event] : []));
    expect(seen.map((e) => e.type).sort()).toEqual(["session.new_device", "session.signed_in"]);
    for (const event of seen) {
      expect(event).toMatchObject({
        userId: user,
        sessionId: other.sessionId,
        device: "Safari 18 on iOS",
        location: OSAKA,
      });
    }
  });
});
