/**
 * Issue 26: Gatehouse against WorkOS's own emulator (`workos/emulate` 0.14.0), not against the
 * provider we wrote. The real auth worker with its real `DefaultIdentityClient` and the WorkOS SDK
 * signs people in through the emulator's hosted authorize, refreshes and revokes there, and takes
 * the webhooks the emulator sends after real changes there (relayed, signed again in ms: the
 * emulator's signer writes seconds). Where the emulator cannot do what we rely on, the test name
 * says so and ARCHITECTURE.md ("WorkOS, field by field") lists the gap.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  ACME,
  cookieHeader,
  deliver,
  delivery,
  events,
  ids,
  type Jar,
  JSON_ACCEPT,
  me,
  send,
  signIn,
  workos,
  workosApi,
} from "./helpers";

afterEach(() => setObjectClock(null));

/** Runs the user's alarm with the objects' clock past KV's one-write-per-second spacing (no sleeping). */
async function alarmAfterWriteSpacing(userId: string): Promise<void> {
  const later = Date.now() + 1_100;
  setObjectClock(() => later);
  try {
    await runDurableObjectAlarm(env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId)));
  } finally {
    setObjectClock(null);
  }
}

const ORG_CONSOLE = `/account/organizations/${ACME}`;

describe("sign-in through WorkOS's hosted authorize", () => {
  it("without an organization: the session is the emulator's user, in no organization", async () => {
    const jar: Jar = {};
    expect((await signIn(jar, "margaret@example.test")).status).toBe(302);
    const { status, body } = await me(jar);
    expect(status).toBe(200);
    expect(body.user).toMatchObject({ id: ids.margaret, email: "margaret@example.test", memberships: [] });
    expect((body.user as { organizationId?: string }).organizationId ?? null).toBeNull();
  });

  it("into an organization: organization and role come from WorkOS's memberships (the emulator's authorize ignores organization_id)", async () => {
    const jar: Jar = {};
    expect((await signIn(jar, "ada@acme.test", `?organization_id=${ACME}`)).status).toBe(302);
    const { body } = await me(jar);
    expect(body.user).toMatchObject({
      id: ids.ada,
      organizationId: ACME,
      memberships: [expect.objectContaining({ organizationId: ACME, role: "admin" })],
    });
  });

  it("an inactive membership grants nothing (the emulator ignores the `statuses` filter: the worker checks each status)", async () => {
    const membership = workos.membershipIds["user_01GRACEHOPPER0000000000000:org_01GLOBEX000000000000000000"]!;
    await workosApi("PUT", `/user_management/organization_memberships/${membership}/deactivate`);
    const jar: Jar = {};
    await signIn(jar, "grace@globex.test");
    const user = (await me(jar)).body.user as { memberships: { organizationId: string }[] };
    expect(user.memberships.map((m) => m.organizationId)).toEqual([ACME]);
    await workosApi("PUT", `/user_management/organization_memberships/${membership}/reactivate`);
  });

  it("into an organization the person is not a member of: refused (403 organization_not_allowed)", async () => {
    const jar: Jar = {};
    const res = await signIn(jar, "margaret@example.test", `?organization_id=${ACME}`);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: "organization_not_allowed" });
  });
});

describe("step-up with WorkOS's tokens (no auth_time)", () => {
  it("an admin of Acme reaches the organization console after a step-up through the emulator", async () => {
    const jar: Jar = {};
    await signIn(jar, "ada@acme.test", `?organization_id=${ACME}`);
    // A plain sign-in may ride on the provider's own session: its recency is unknown, so the console asks for a step-up.
    const before = await send(jar, ORG_CONSOLE, { headers: JSON_ACCEPT });
    expect(before.status).toBe(403);
    expect(await before.json()).toMatchObject({ error: "step_up_required" });
    // The step-up: a signed flow this browser started with max_age (and prompt=login) at WorkOS.
    const back = await signIn(
      jar,
      "ada@acme.test",
      `?organization_id=${ACME}&max_age=300&return_to=${encodeURIComponent(ORG_CONSOLE)}`,
    );
    expect(back.status).toBe(302);
    expect(back.headers.get("Location")).toBe(ORG_CONSOLE);
    expect((await send(jar, ORG_CONSOLE, { headers: JSON_ACCEPT })).status).toBe(200);
  });
});

describe("the provider's tokens", () => {
  const accessToken = (jar: Jar) => exports.AuthService.accessToken(cookieHeader(jar));
  /** The emulator starts a session per code exchange and per refresh: one `session.created` each. */
  const refreshesOf = async (userId: string) =>
    (await events()).filter((e) => e.event === "session.created" && e.data.user_id === userId).length;

  it("concurrent callers share one refresh grant; the rotated token is kept; a refused one asks for a new sign-in", async () => {
    const jar: Jar = {};
    await signIn(jar, "alan@acme.test", `?organization_id=${ACME}`);
    const first = await accessToken(jar);
    expect(first).toMatchObject({ ok: true });
    const grants = await refreshesOf(ids.alan);
    // An hour on (the emulator's access tokens live an hour): five callers at once.
    setObjectClock(() => Date.now() + 3_700_000);
    const answers = await Promise.all(Array.from({ length: 5 }, () => accessToken(jar)));
    const tokens = new Set(answers.map((a) => (a.ok ? a.accessToken : a.reason)));
    expect(tokens.size).toBe(1);
    expect([...tokens][0]).not.toBe(first.ok ? first.accessToken : "");
    expect(await refreshesOf(ids.alan)).toBe(grants + 1);
    // Another hour on: the rotated refresh token was kept (the emulator refuses a spent one with 400).
    setObjectClock(() => Date.now() + 7_400_000);
    expect(await accessToken(jar)).toMatchObject({ ok: true });
    expect(await refreshesOf(ids.alan)).toBe(grants + 2);
    // Someone else spends the stored refresh token first: WorkOS refuses ours, the person must sign in again.
    const user = env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(ids.alan));
    const stored = await runInDurableObject(user, (_i, state) =>
      state.storage.sql
        .exec<{ refresh_token: string }>("SELECT refresh_token FROM sessions WHERE refresh_token IS NOT NULL")
        .one(),
    );
    const spent = await fetch(`${workos.url}/user_management/authenticate`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        grant_type: "refresh_token",
        client_id: workos.clientId,
        client_secret: workos.apiKey,
        refresh_token: stored.refresh_token,
      }),
    });
    expect(spent.status).toBe(200);
    setObjectClock(() => Date.now() + 11_100_000);
    expect(await accessToken(jar)).toEqual({ ok: false, reason: "reauthentication_required" });
  });
});

describe("impersonation (a seeded user with an impersonator)", () => {
  it("the session carries the operator, and the worker narrows what it may do", async () => {
    const jar: Jar = {};
    await signIn(jar, "ivy@acme.test", `?organization_id=${ACME}`);
    const session = await exports.AuthService.resolveSession(cookieHeader(jar));
    expect(session?.user.id).toBe(ids.ivy);
    expect(session?.impersonator).toMatchObject({ email: "support@gatehouse.test", reason: "Support ticket 42" });
    const page = await send(jar, "/account/sessions", { headers: { Accept: "text/html" } });
    expect(await page.text()).toContain("support@gatehouse.test");
  });
});

describe("sign-out ends the WorkOS session", () => {
  it("logout revokes the session at WorkOS (the emulator emits session.revoked for its sid)", async () => {
    const jar: Jar = {};
    await signIn(jar, "grace@globex.test");
    const sid = (await events()).find((e) => e.event === "session.created" && e.data.user_id === ids.grace)?.data.id;
    expect(sid).toBeTruthy();
    const res = await send(jar, "/auth/logout", {
      headers: { "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" },
    });
    expect(res.status).toBe(302);
    await delivery((d) => d.event === "session.revoked" && d.data.id === sid);
    expect((await me(jar)).status).toBe(401);
  });
});

describe("webhooks the emulator sends after real changes there", () => {
  it("a role change reaches the session (live), then a removal leaves it in no organization", async () => {
    const jar: Jar = {};
    await signIn(jar, "alan@acme.test", `?organization_id=${ACME}`);
    const membership = workos.membershipIds[`user_01ALANTURING00000000000000:org_01ACME00000000000000000000`]!;
    await workosApi("PUT", `/user_management/organization_memberships/${membership}`, { role_slug: "admin" });
    const updated = await delivery((d) => d.event === "organization_membership.updated" && d.data.id === membership);
    expect((await deliver(updated)).status).toBe(200);
    expect(((await me(jar)).body.user as { memberships: { role: string }[] }).memberships[0]?.role).toBe("admin");

    await workosApi("DELETE", `/user_management/organization_memberships/${membership}`);
    const deleted = await delivery((d) => d.event === "organization_membership.deleted" && d.data.id === membership);
    expect((await deliver(deleted)).status).toBe(200);
    // KV takes one write per second per key: the second rewrite of one record waits for the alarm.
    await alarmAfterWriteSpacing(ids.alan);
    const after = (await me(jar)).body.user as { organizationId?: string; memberships: unknown[] };
    expect(after.memberships).toEqual([]);
    expect(after.organizationId ?? null).toBeNull();
  });

  it("a session revoked at WorkOS ends ours", async () => {
    const jar: Jar = {};
    await signIn(jar, "margaret@example.test");
    const sid = (await events()).find((e) => e.event === "session.created" && e.data.user_id === ids.margaret)?.data
      .id as string;
    await workosApi("POST", "/user_management/sessions/revoke", { session_id: sid });
    expect((await deliver(await delivery((d) => d.event === "session.revoked" && d.data.id === sid))).status).toBe(200);
    expect((await me(jar)).status).toBe(401);
  });

  it("a user deleted at WorkOS: every session ends", async () => {
    const jar: Jar = {};
    await signIn(jar, "ivy@acme.test");
    await workosApi("DELETE", `/user_management/users/${ids.ivy}`);
    expect((await deliver(await delivery((d) => d.event === "user.deleted" && d.data.id === ids.ivy))).status).toBe(
      200,
    );
    expect((await me(jar)).status).toBe(401);
  });
});
