/**
 * The admin HTTP API of the security record: a user's timeline (paged by cursor) and devices, a
 * revocation receipt by id (every kind of revocation leaves one), an organization's kill switch and
 * session policy. Bearer tokens (missing → 401, wrong → 403; the label of ADMIN_API_TOKENS names the
 * actor), ids checked before they name an object (400), and 503 `not_configured` for the
 * organization routes of a worker without the ORGANIZATIONS binding.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RevocationReceipt, SecurityEvent } from "../../client-sdk/protocol/security-record";
import { openTab, withTimeout } from "../sessions/helpers";
import {
  admin,
  allEvents,
  BERLIN,
  eventsOf,
  FIREFOX_140_MAC,
  freshAddress,
  freshOrg,
  freshUser,
  manager,
  ORIGIN,
  organizationOf,
  PARIS,
  SAFARI_IPHONE,
  SECOPS_TOKEN,
  signIn,
  stubOf,
} from "./helpers";
import worker from "./worker";

const json = async <T = Record<string, unknown>>(res: Response) => (await res.json()) as T;

describe("authentication of the new routes", () => {
  it("every route needs a token: missing → 401, wrong → 403, and a refused POST changes nothing", async () => {
    const user = freshUser();
    const org = freshOrg();
    const routes: [string, string][] = [
      ["GET", `/admin/users/${user}/timeline`],
      ["GET", `/admin/users/${user}/devices`],
      ["GET", `/admin/receipts/rcpt.u.${user}.1`],
      ["GET", `/admin/organizations/${org}/kill-switch`],
      ["POST", `/admin/organizations/${org}/kill-switch`],
      ["POST", `/admin/organizations/${org}/kill-switch/lift`],
      ["GET", `/admin/organizations/${org}/policy`],
      ["POST", `/admin/organizations/${org}/policy`],
      ["POST", `/admin/organizations/${org}/policy/clear`],
    ];
    for (const [method, path] of routes) {
      const missing = await admin(method, path, { token: null });
      expect(missing.status, `${method} ${path}`).toBe(401);
      expect(missing.headers.get("WWW-Authenticate")).toContain("Bearer");
      expect((await admin(method, path, { token: "not-the-token" })).status, `${method} ${path}`).toBe(403);
      expect((await admin(method, path, { token: `${SECOPS_TOKEN}x` })).status, `${method} ${path}`).toBe(403);
    }
    expect(await organizationOf(org).epoch()).toBeNull();
    const ok = await admin("GET", `/admin/users/${user}/timeline`, { token: SECOPS_TOKEN });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("Cache-Control")).toBe("no-store");
  });
});

describe("GET /admin/users/:id/timeline and /devices", () => {
  it("pages the timeline newest first by cursor, every event exactly once", async () => {
    const user = freshUser();
    const sessions = manager();
    const s = await signIn(sessions, user);
    const resolved = (await sessions.resolveSession(new Request(ORIGIN, { headers: { Cookie: s.cookie } })))!;
    for (const family of ["auth", "admin", "account"]) await sessions.recordLockout(resolved, family, 10);
    const all = await allEvents(user);
    expect(all).toHaveLength(5);

    const pages: SecurityEvent[][] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await admin("GET", `/admin/users/${user}/timeline?${query}`);
      expect(res.status).toBe(200);
      const body = await json<{ userId: string; events: SecurityEvent[]; nextCursor: string | null }>(res);
      expect(body.userId).toBe(user);
      pages.push(body.events);
      cursor = body.nextCursor;
    } while (cursor !== null);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(all);
    const defaults = await json<{ events: SecurityEvent[]; nextCursor: string | null }>(
      await admin("GET", `/admin/users/${user}/timeline`),
    );
    expect(defaults).toMatchObject({ events: all, nextCursor: null });
  });

  it("refuses a bad user id, limit or cursor with 400", async () => {
    const user = freshUser();
    const cases: [string, string][] = [
      ["/admin/users/a%20b/timeline", "invalid_user_id"],
      [`/admin/users/${"x".repeat(129)}/timeline`, "invalid_user_id"],
      ["/admin/users/a%2Fb/devices", "invalid_user_id"],
      [`/admin/users/${user}/timeline?limit=0`, "invalid_limit"],
      [`/admin/users/${user}/timeline?limit=101`, "invalid_limit"],
      [`/admin/users/${user}/timeline?limit=2.5`, "invalid_limit"],
      [`/admin/users/${user}/timeline?limit=ten`, "invalid_limit"],
      [`/admin/users/${user}/timeline?cursor=42`, "invalid_cursor"],
      [`/admin/users/${user}/timeline?cursor=c-1`, "invalid_cursor"],
    ];
    for (const [path, error] of cases) {
      const res = await admin("GET", path);
      expect(res.status, path).toBe(400);
      expect(await json(res), path).toMatchObject({ error });
    }
  });

  it("lists the user's devices and places with their live sessions", async () => {
    const user = freshUser();
    const sessions = manager();
    await signIn(sessions, user, { userAgent: FIREFOX_140_MAC, location: BERLIN });
    await signIn(sessions, user, { userAgent: SAFARI_IPHONE, location: PARIS });
    const res = await admin("GET", `/admin/users/${user}/devices`);
    expect(res.status).toBe(200);
    const body = await json<{ userId: string; devices: { device: string; location: unknown; sessions: number }[] }>(
      res,
    );
    expect(body.userId).toBe(user);
    expect(body.devices.map((d) => [d.device, d.location, d.sessions]).sort()).toEqual([
      ["Firefox 140 on macOS", BERLIN, 1],
      ["Safari 18 on iOS", PARIS, 1],
    ]);
  });
});

describe("receipts", () => {
  it("every kind of revocation leaves a receipt, fetchable by id with who did it and what it did", async () => {
    const user = freshUser();
    const sessions = manager({ sessionPolicy: { maxSessions: 4 } });
    const self = await signIn(sessions, user);
    const byAdmin = await signIn(sessions, user);
    const logout = await signIn(sessions, user);
    await signIn(sessions, user, { providerSessionId: "session_01RECEIPT" });
    const tab = await openTab(user, byAdmin.cookie);

    const receipts = new Map<string, string>();
    receipts.set("self", (await sessions.revokeSession(self.sessionId))!.receiptId!);
    const adminRes = await admin("DELETE", `/admin/sessions/${byAdmin.sessionId}`, { token: SECOPS_TOKEN });
    receipts.set("admin", (await json<{ receiptId: string }>(adminRes)).receiptId);
    receipts.set("logout", (await sessions.revokeSessionOf(user, logout.sessionId, "logout"))!.receiptId!);
    await stubOf(user).applyProviderEvent({
      id: "event_01RECEIPT",
      type: "session.revoked",
      occurredAt: Date.now(),
      providerSessionId: "session_01RECEIPT",
    });
    // The cap of 4: the fifth sign-in evicts the oldest live one.
    await Promise.all([1, 2, 3, 4].map(() => signIn(sessions, user)));
    await signIn(sessions, user);
    const everyone = await admin("POST", `/admin/users/${user}/sessions/revoke`);
    receipts.set("all", (await json<{ receiptId: string }>(everyone)).receiptId);

    // Receipts the answer did not carry (provider, policy) are named on the timeline.
    const onTimeline = new Map(
      [...(await eventsOf(user, "session.revoked")), ...(await eventsOf(user, "session.signed_out"))].map((e) => [
        String(e.detail.receiptId),
        e,
      ]),
    );
    expect(onTimeline.size).toBe(6);
    for (const id of receipts.values()) expect(onTimeline.has(id)).toBe(true);
    const byActor = new Map([...onTimeline.values()].map((e) => [e.actor?.kind, String(e.detail.receiptId)]));
    receipts.set("provider", byActor.get("provider")!);
    receipts.set("policy", byActor.get("policy")!);

    const fetched = new Map<string, RevocationReceipt>();
    for (const [kind, id] of receipts) {
      expect(id, kind).toMatch(new RegExp(`^rcpt\\.u\\.${user}\\.\\d+$`));
      const res = await admin("GET", `/admin/receipts/${id}`);
      expect(res.status, kind).toBe(200);
      fetched.set(kind, await json<RevocationReceipt>(res));
    }
    expect(fetched.get("self")).toMatchObject({ actor: { kind: "user" }, revoked: 1, kvDeleted: 1, kvPending: 0 });
    expect(fetched.get("admin")).toMatchObject({
      actor: { kind: "admin", label: "secops" },
      revoked: 1,
      socketsClosed: 1,
      kvDeleted: 1,
    });
    expect(fetched.get("logout")).toMatchObject({ actor: { kind: "user" }, revoked: 1 });
    expect(fetched.get("provider")).toMatchObject({
      actor: { kind: "provider", label: "session.revoked" },
      revoked: 1,
    });
    expect(fetched.get("policy")).toMatchObject({ actor: { kind: "policy", label: "max_sessions" }, revoked: 1 });
    expect(fetched.get("all")).toMatchObject({ actor: { kind: "admin", label: "admin" }, revoked: 4 });
    for (const receipt of fetched.values()) {
      expect(receipt.kvDeleted + receipt.kvPending).toBe(receipt.revoked);
      expect(receipt.refusedAfterMs).toBeGreaterThanOrEqual(0);
    }
    expect((await withTimeout(tab.closed)).code).toBe(4001);
  });

  it("an unknown receipt is 404 receipt_not_found; a malformed id is 400 invalid_receipt_id", async () => {
    const user = freshUser();
    const sessions = manager();
    const s = await signIn(sessions, user);
    const { receiptId } = (await sessions.revokeSession(s.sessionId))!;
    const n = Number(receiptId!.split(".").at(-1));
    for (const id of [`rcpt.u.${user}.${n + 1}`, `rcpt.u.${freshUser()}.1`, `rcpt.o.${freshOrg()}.1`]) {
      const res = await admin("GET", `/admin/receipts/${id}`);
      expect(res.status, id).toBe(404);
      expect(await json(res)).toMatchObject({ error: "receipt_not_found" });
    }
    for (const id of ["nope", "rcpt.x.user.1", `rcpt.u.${user}`, `rcpt.u.${user}.one`, "rcpt.u.a%20b.1", "rcpt.u..1"]) {
      const res = await admin("GET", `/admin/receipts/${id}`);
      expect(res.status, id).toBe(400);
      expect(await json(res)).toMatchObject({ error: "invalid_receipt_id" });
    }
  });
});

describe("organizations: kill switch state and policy", () => {
  it("reads and sets an organization's policy; refuses bad policies with 400 and large bodies with 413", async () => {
    const org = freshOrg();
    const path = `/admin/organizations/${org}/policy`;
    expect(await json(await admin("GET", path))).toEqual({
      organizationId: org,
      policy: { maxSessions: null, onLimit: "evict-oldest" },
      source: "default",
    });
    const bad = [
      "",
      "not json",
      "[]",
      "null",
      "5",
      JSON.stringify({ maxSessions: 0 }),
      JSON.stringify({ maxSessions: 1001 }),
      JSON.stringify({ maxSessions: 2.5 }),
      JSON.stringify({ maxSessions: "3" }),
      JSON.stringify({ maxSessions: 3, onLimit: "kick-everyone" }),
    ];
    for (const body of bad) {
      const res = await admin("POST", path, { body });
      expect(res.status, body).toBe(400);
      expect(await json(res), body).toMatchObject({ error: "invalid_policy" });
    }
    const large = await admin("POST", path, { body: JSON.stringify({ maxSessions: 3, pad: "x".repeat(5000) }) });
    expect(large.status).toBe(413);
    expect(await organizationOf(org).policy()).toBeNull();

    const set = await admin("POST", path, {
      body: JSON.stringify({ maxSessions: 3, onLimit: "refuse-new", extra: 1 }),
    });
    expect(await json(set)).toEqual({
      organizationId: org,
      policy: { maxSessions: 3, onLimit: "refuse-new" },
      source: "operator",
    });
    expect(await json(await admin("GET", path))).toMatchObject({
      policy: { maxSessions: 3, onLimit: "refuse-new" },
      source: "operator",
    });
    expect(await organizationOf(org).policy()).toEqual({ maxSessions: 3, onLimit: "refuse-new" });
    expect(await json(await admin("POST", `${path}/clear`))).toMatchObject({ source: "default" });
    expect(await organizationOf(org).policy()).toBeNull();
  });

  it("reads the kill switch's epoch; refuses a bad organization id with 400", async () => {
    const org = freshOrg();
    expect(await json(await admin("GET", `/admin/organizations/${org}/kill-switch`))).toEqual({
      organizationId: org,
      epoch: null,
    });
    for (const [method, path] of [
      ["GET", "/admin/organizations/a%20b/kill-switch"],
      ["POST", "/admin/organizations/a%20b/kill-switch"],
      ["POST", `/admin/organizations/${"o".repeat(129)}/kill-switch/lift`],
      ["GET", "/admin/organizations/a.b/policy"],
      ["POST", "/admin/organizations/a.b/policy/clear"],
    ] as const) {
      const res = await admin(method, path);
      expect(res.status, path).toBe(400);
      expect(await json(res)).toMatchObject({ error: "invalid_organization_id" });
    }
  });

  it("answers 503 not_configured on a worker without the ORGANIZATIONS binding", async () => {
    const { ORGANIZATIONS: _, ...unbound } = env;
    const org = freshOrg();
    const call = async (method: string, path: string) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request(`${ORIGIN}${path}`, {
          method,
          headers: { Authorization: `Bearer ${env.ADMIN_API_TOKEN}`, "CF-Connecting-IP": freshAddress() },
        }),
        unbound as Cloudflare.Env,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    for (const [method, path] of [
      ["GET", `/admin/organizations/${org}/kill-switch`],
      ["POST", `/admin/organizations/${org}/kill-switch`],
      ["POST", `/admin/organizations/${org}/kill-switch/lift`],
      ["GET", `/admin/organizations/${org}/policy`],
      ["POST", `/admin/organizations/${org}/policy`],
    ]) {
      const res = await call(method!, path!);
      expect(res.status, path).toBe(503);
      expect(await json(res)).toMatchObject({ error: "not_configured" });
    }
    // The user routes need no organizations; an organization's receipt cannot exist there.
    expect((await call("GET", `/admin/users/${freshUser()}/timeline`)).status).toBe(200);
    const orgReceipt = await call("GET", `/admin/receipts/rcpt.o.${org}.1`);
    expect(orgReceipt.status).toBe(404);
    expect(await organizationOf(org).epoch()).toBeNull();
  });
});
