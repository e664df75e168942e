/**
 * The session cap, enforced atomically in the user's object: 50 concurrent sign-ins leave exactly
 * the cap. `evict-oldest` (the worker's configured policy) signs the oldest out (refused at once in
 * strict mode, their open tabs told, their KV records replaced by revoked marks); `refuse-new` (an
 * operator's policy set through the admin API) refuses every sign-in past the cap with
 * `session_limit_reached` (403) and keeps no record of it.
 */
import { describe, expect, it } from "vitest";
import { AuthError } from "../../workers/auth/errors";
import { openTab, withTimeout } from "../sessions/helpers";
import {
  admin,
  drainKv,
  eventsOf,
  freshOrg,
  freshUser,
  kvOf,
  manager,
  requestWith,
  type SignIn,
  signIn,
} from "./helpers";

const CAP = 5;
const BURST = 50;

describe("evict-oldest under 50 concurrent sign-ins", () => {
  it("exactly the cap remain; the evicted are refused, their tabs told, their KV records marked", async () => {
    const user = freshUser();
    let now = Date.now() - 60_000;
    const sessions = manager({ clock: () => now, sessionPolicy: { maxSessions: CAP, onLimit: "evict-oldest" } });
    // Three older sessions, each with an open tab.
    const older: SignIn[] = [];
    for (let i = 0; i < 3; i++) {
      older.push(await signIn(sessions, user));
      now += 1_000;
    }
    const tabs = await Promise.all(older.map((s) => openTab(user, s.cookie)));

    now = Date.now();
    const burst = await Promise.all(Array.from({ length: BURST }, () => signIn(sessions, user)));
    const everyone = [...older, ...burst];

    const live = (await sessions.listSessions(user)).map((s) => s.id).sort();
    expect(live).toHaveLength(CAP);
    // The oldest went first.
    for (const s of older) expect(live).not.toContain(s.sessionId);
    // Strict mode: exactly the live ones resolve; every evicted one is refused from the commit on.
    const resolved = await Promise.all(everyone.map((s) => manager().resolveSession(requestWith(s.cookie))));
    expect(
      everyone
        .filter((_, i) => resolved[i] !== null)
        .map((s) => s.sessionId)
        .sort(),
    ).toEqual(live);
    // Their open tabs were told and closed.
    for (const tab of tabs) {
      expect(await withTimeout(tab.next("session.revoked"))).toMatchObject({
        type: "session.revoked",
        reason: "revoked",
      });
      expect((await withTimeout(tab.closed)).code).toBe(4001);
    }
    // KV: once the object's alarm wrote the marks, exactly the cap of live records, the rest marked as this user's.
    await drainKv(user);
    const kv = await kvOf(user);
    expect(kv.live).toEqual(live);
    expect(kv.revoked).toHaveLength(BURST + 3 - CAP);

    // On the timeline: every sign-in, and one eviction per session signed out, by the policy.
    expect(await eventsOf(user, "session.signed_in")).toHaveLength(BURST + 3);
    const evictions = await eventsOf(user, "session.revoked");
    expect(evictions.every((e) => e.actor?.kind === "policy" && e.actor.label === "max_sessions")).toBe(true);
    expect(evictions.reduce((n, e) => n + Number(e.detail.sessions), 0)).toBe(BURST + 3 - CAP);
    expect(new Set(evictions.map((e) => e.sessionId)).size).toBe(evictions.length);
  });
});

describe("refuse-new under 50 concurrent sign-ins (an operator's policy)", () => {
  it("exactly the cap succeed; the rest get session_limit_reached (403) and leave nothing behind", async () => {
    const user = freshUser();
    const org = freshOrg();
    const set = await admin("POST", `/admin/organizations/${org}/policy`, {
      body: JSON.stringify({ maxSessions: CAP, onLimit: "refuse-new" }),
    });
    expect(set.status).toBe(200);
    const sessions = manager();
    const results = await Promise.allSettled(
      Array.from({ length: BURST }, () => signIn(sessions, user, { organizations: [org] })),
    );
    const signedIn = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
    expect(signedIn).toHaveLength(CAP);
    expect(refused).toHaveLength(BURST - CAP);
    for (const error of refused) {
      expect(error).toBeInstanceOf(AuthError);
      expect(error).toMatchObject({ code: "session_limit_reached", status: 403 });
    }
    const live = (await sessions.listSessions(user)).map((s) => s.id).sort();
    expect(live).toEqual(signedIn.map((s) => s.sessionId).sort());
    // No KV record survives a refused sign-in; nothing was revoked.
    expect(await kvOf(user)).toEqual({ live, revoked: [] });
    // One event for the burst: refusals from one device and place count once per 10 minutes.
    const refusals = await eventsOf(user, "session.refused");
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({
      actor: { kind: "policy", label: "max_sessions" },
      detail: { reason: "session_limit", maxSessions: CAP },
    });
    expect(await eventsOf(user, "session.signed_in")).toHaveLength(CAP);

    // A session signed out makes room for exactly one more.
    await sessions.destroySession(signedIn[0]!.sessionId);
    await signIn(sessions, user, { organizations: [org] });
    await expect(signIn(sessions, user, { organizations: [org] })).rejects.toMatchObject({
      code: "session_limit_reached",
    });
    // The configured (here: the default, no cap) policy applies again once the operator clears theirs.
    const cleared = await admin("POST", `/admin/organizations/${org}/policy/clear`);
    expect(await cleared.json()).toMatchObject({ policy: { maxSessions: null }, source: "default" });
    await signIn(sessions, user, { organizations: [org] });
    expect(await sessions.listSessions(user)).toHaveLength(CAP + 1);
  });
});

describe("an organization's cap holds whichever organization a member signs in to", () => {
  it("the strictest policy of the person's organizations applies; another organization may still relax the default", async () => {
    const user = freshUser();
    const [capped, open] = [freshOrg(), freshOrg()];
    await admin("POST", `/admin/organizations/${capped}/policy`, {
      body: JSON.stringify({ maxSessions: 1, onLimit: "refuse-new" }),
    });
    const sessions = manager();
    // Signed in to the uncapped organization, or to none: the capped one's policy still counts.
    await signIn(sessions, user, { organizations: [open, capped] });
    await expect(signIn(sessions, user, { organizations: [open, capped] })).rejects.toMatchObject({
      code: "session_limit_reached",
    });
    const none = sessions.createSession({
      id: user,
      email: `${user}@acme.test`,
      firstName: "T",
      lastName: "U",
      memberships: [
        { organizationId: open, organizationSlug: "open", role: "member" },
        { organizationId: capped, organizationSlug: "capped", role: "member" },
      ],
    });
    await expect(none).rejects.toMatchObject({ code: "session_limit_reached" });
    // A member of the open organization only is not held by the other's cap.
    const other = freshUser();
    await signIn(sessions, other, { organizations: [open] });
    await signIn(sessions, other, { organizations: [open] });
    expect(await sessions.listSessions(other)).toHaveLength(2);
    await admin("POST", `/admin/organizations/${capped}/policy/clear`);
  });
});
