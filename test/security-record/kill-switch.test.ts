/**
 * An organization's kill switch. Sign-ins index the organization's members in its object; the
 * admin call records the epoch, publishes it in KV and ends every member's sessions in their own
 * objects: strict mode refuses a session issued before it on the next request, open tabs are told,
 * the receipt counts what happened and can be fetched again by id. Eventual mode refuses a
 * pre-epoch session once this isolate reads the published epoch (its cache lives 10 s, by the
 * manager's injected clock). Lifting it keeps ended sessions ended. Resolving a session never
 * calls the organization's object, and reads the epoch from KV at most once per cache lifetime.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { SessionManager } from "gatehouse-workers/auth";
import { OrganizationSessions } from "gatehouse-workers/durable-objects";
import { describe, expect, it } from "vitest";
import { orgEpochKey } from "../../client-sdk/protocol/organization-controls";
import { EPOCH_CACHE_MS } from "../../workers/auth/session/org-epochs";
import { openTab, staysOpen, withTimeout } from "../sessions/helpers";
import { revokedMarkOwner } from "../support/kv-records";
import {
  admin,
  counted,
  drainKv,
  eventsOf,
  freshOrg,
  freshUser,
  manager,
  ORIGIN,
  organizationOf,
  requestWith,
  SECOPS_TOKEN,
  type SignIn,
  signIn,
  stubOf,
} from "./helpers";

/** Members of a fresh organization, each signed in (a minute ago, by the manager's clock) and indexed. */
async function organizationWithMembers(count: number) {
  const org = freshOrg();
  const issued = manager({ clock: () => Date.now() - 60_000 });
  const members: { userId: string; session: SignIn }[] = [];
  for (let i = 0; i < count; i++) {
    const userId = freshUser();
    members.push({ userId, session: await signIn(issued, userId, { organizations: [org, "org_acme"] }) });
  }
  return { org, members, issued };
}

/** A sign-in a minute ago where the organizations' objects are not bound: nothing indexes this member. */
function signInUnindexed(userId: string, org: string): Promise<SignIn> {
  const unindexed = new SessionManager(env.SESSIONS, env.SESSION_SECRET, {
    userSessions: env.USER_SESSIONS,
    clock: () => Date.now() - 60_000,
  });
  return signIn(unindexed, userId, { organizations: [org] });
}

const me = (cookie: string) =>
  exports.default.fetch(`${ORIGIN}/api/me`, { headers: { Cookie: cookie, Accept: "application/json" } });

describe("the kill switch in strict mode", () => {
  it("refuses every member's earlier session on the next request, tells open tabs, and answers a receipt", async () => {
    const { org, members, issued } = await organizationWithMembers(3);
    const extra = await signIn(issued, members[0]!.userId, { organizations: [org, "org_acme"] });
    expect(await organizationOf(org).memberCount()).toBe(3);
    const tab = await openTab(members[0]!.userId, members[0]!.session.cookie);
    for (const { session } of members) expect((await me(session.cookie)).status).toBe(200);

    const res = await admin("POST", `/admin/organizations/${org}/kill-switch`, { token: SECOPS_TOKEN });
    expect(res.status).toBe(200);
    const { receipt } = (await res.json()) as { receipt: Record<string, unknown> & { id: string } };
    expect(receipt).toMatchObject({
      actor: { kind: "kill_switch", label: "secops" },
      members: 3,
      revoked: 4,
      socketsClosed: 1,
    });
    expect(receipt.id).toMatch(new RegExp(`^rcpt\\.o\\.${org}\\.\\d+$`));
    expect(Number(receipt.kvDeleted) + Number(receipt.kvPending)).toBe(4);
    expect(receipt.refusedAfterMs).toBeGreaterThanOrEqual(0);

    // The next request with any of them is refused, through the worker and a strict manager alike.
    for (const s of [...members.map((m) => m.session), extra]) {
      expect((await me(s.cookie)).status).toBe(401);
      expect(await manager().resolveSession(requestWith(s.cookie))).toBeNull();
    }
    // Strict mode's own answer, apart from the published epoch: each member's object refuses them.
    for (const { userId, session } of members) expect(await stubOf(userId).isActive(session.sessionId)).toBe(false);
    expect(await stubOf(members[0]!.userId).isActive(extra.sessionId)).toBe(false);
    expect(await withTimeout(tab.next("session.revoked"))).toMatchObject({ sessionId: members[0]!.session.sessionId });
    expect((await withTimeout(tab.closed)).code).toBe(4001);

    // The receipt, fetched later by id, says the same.
    const later = await admin("GET", `/admin/receipts/${receipt.id}`);
    expect(later.status).toBe(200);
    expect(await later.json()).toEqual(receipt);

    // Each member's timeline: the switch once, and the revocation of their sessions, by the token's label.
    for (const { userId } of members) {
      const ended = await eventsOf(userId, "organization.sessions_ended");
      expect(ended).toHaveLength(1);
      expect(ended[0]).toMatchObject({
        actor: { kind: "kill_switch", label: "secops" },
        detail: { organizationId: org },
      });
      const revoked = await eventsOf(userId, "session.revoked");
      expect(revoked).toHaveLength(1);
      expect(revoked[0]!.actor).toEqual({ kind: "kill_switch", label: "secops" });
      // The KV records become marks naming the member (written by the members' alarms).
      await drainKv(userId);
    }
    for (const { userId, session } of members)
      expect(await revokedMarkOwner(env.SESSIONS, session.sessionId)).toBe(userId);
    const epoch = (await (await admin("GET", `/admin/organizations/${org}/kill-switch`)).json()) as { epoch: number };
    expect(epoch.epoch).toBeGreaterThan(Date.now() - 60_000);
    expect(await env.SESSIONS.get(orgEpochKey(org), "json")).toEqual({ epoch: epoch.epoch });
  });

  it("lifting it lets new sessions work, and ended sessions stay ended", async () => {
    const { org, members } = await organizationWithMembers(2);
    await manager().endOrganizationSessions(org, { kind: "kill_switch", label: "ops" });
    // A sign-in after the switch is not refused by it (its session is issued after the epoch).
    const during = await signIn(manager(), members[0]!.userId, { organizations: [org] });
    expect((await me(during.cookie)).status).toBe(200);

    const lift = await admin("POST", `/admin/organizations/${org}/kill-switch/lift`);
    expect(await lift.json()).toEqual({ organizationId: org, epoch: null });
    // The published epoch stays: sessions issued before it stay refused wherever they are resolved.
    const published = (await env.SESSIONS.get<{ epoch: number }>(orgEpochKey(org), "json"))!.epoch;
    expect(published).toBeGreaterThan(0);
    expect(await organizationOf(org).epoch()).toBeNull();

    const after = await signIn(manager(), members[1]!.userId, { organizations: [org] });
    expect((await me(after.cookie)).status).toBe(200);
    expect((await me(during.cookie)).status).toBe(200);
    for (const { userId, session } of members) {
      await drainKv(userId);
      expect((await me(session.cookie)).status).toBe(401);
      expect(await manager({ revocation: "eventual" }).resolveSession(requestWith(session.cookie))).toBeNull();
      expect(await stubOf(userId).isActive(session.sessionId)).toBe(false);
    }
    // A second switch after the lift ends what was issued since.
    const second = await manager().endOrganizationSessions(org, { kind: "kill_switch", label: "ops" });
    expect(second).toMatchObject({ members: 2, revoked: 2 });
    expect((await me(after.cookie)).status).toBe(401);
    expect((await env.SESSIONS.get<{ epoch: number }>(orgEpochKey(org), "json"))!.epoch).toBeGreaterThan(published);
  });

  it("a member the index missed stays refused after the lift (no object ended that session: the epoch does)", async () => {
    const org = freshOrg();
    const userId = freshUser();
    const s = await signInUnindexed(userId, org);
    await manager().endOrganizationSessions(org, { kind: "kill_switch", label: "ops" });
    expect(await manager({ revocation: "eventual" }).resolveSession(requestWith(s.cookie))).toBeNull();
    await manager().liftOrganizationSessions(org);
    expect(await manager({ revocation: "eventual" }).resolveSession(requestWith(s.cookie))).toBeNull();
    expect(await manager().resolveSession(requestWith(s.cookie))).toBeNull();
    expect((await me(s.cookie)).status).toBe(401);
  });

  it("an organization larger than one invocation's share: the alarm tells the rest, the receipt completes", async () => {
    const { org, members } = await organizationWithMembers(5);
    const perRun = OrganizationSessions.fanOutPerRun;
    OrganizationSessions.fanOutPerRun = 2;
    try {
      const receipt = await manager().endOrganizationSessions(org, { kind: "kill_switch", label: "ops" });
      expect(receipt).toMatchObject({
        members: 5,
        revoked: 2,
        membersPending: 3,
        membersFailed: 0,
        refusedAfterMs: null,
      });
      const refused = async () =>
        (await Promise.all(members.map(async (m) => (await me(m.session.cookie)).status))).filter((s) => s === 401)
          .length;
      // Eventual mode refuses every one already (the published epoch); strict mode those told so far.
      for (const m of members) {
        expect(await manager({ revocation: "eventual" }).resolveSession(requestWith(m.session.cookie))).toBeNull();
      }
      expect(await runDurableObjectAlarm(organizationOf(org))).toBe(true);
      expect(await manager().receipt(receipt.id)).toMatchObject({
        revoked: 4,
        membersPending: 1,
        refusedAfterMs: null,
      });
      expect(await runDurableObjectAlarm(organizationOf(org))).toBe(true);
      const done = await manager().receipt(receipt.id);
      expect(done).toMatchObject({ members: 5, revoked: 5, membersPending: 0, membersFailed: 0 });
      expect(done!.refusedAfterMs).toEqual(expect.any(Number));
      expect(await refused()).toBe(5);
      for (const m of members) expect(await stubOf(m.userId).isActive(m.session.sessionId)).toBe(false);
    } finally {
      OrganizationSessions.fanOutPerRun = perRun;
    }
  });

  it("a live tab of a member stays open when another organization's switch is thrown", async () => {
    const { members } = await organizationWithMembers(1);
    const bystander = await organizationWithMembers(1);
    const tab = await openTab(members[0]!.userId, members[0]!.session.cookie);
    await manager().endOrganizationSessions(bystander.org, { kind: "kill_switch", label: "ops" });
    expect(await staysOpen(tab)).toBe("open");
    expect((await me(members[0]!.session.cookie)).status).toBe(200);
  });
});

describe("the kill switch in eventual mode", () => {
  it("refuses a pre-epoch session once the isolate reads the published epoch (a member the index missed)", async () => {
    const org = freshOrg();
    const userId = freshUser();
    // Signed in where the organizations' objects are not bound: nothing indexed this member.
    const s = await signInUnindexed(userId, org);
    expect(await organizationOf(org).memberCount()).toBe(0);

    let now = Date.now();
    const isolate = manager({ revocation: "eventual", clock: () => now });
    expect(await isolate.resolveSession(requestWith(s.cookie))).not.toBeNull();

    const receipt = await manager().endOrganizationSessions(org, { kind: "kill_switch", label: "ops" });
    expect(receipt).toMatchObject({ members: 0, revoked: 0 });
    // Within the isolate's cache lifetime it may still accept the session (the documented window)…
    now += EPOCH_CACHE_MS - 1;
    expect(await isolate.resolveSession(requestWith(s.cookie))).not.toBeNull();
    // …and once the cache is stale it reads the epoch and refuses.
    now += 1;
    expect(await isolate.resolveSession(requestWith(s.cookie))).toBeNull();
    // Another isolate, and strict mode, see the published epoch at once.
    expect(await manager({ revocation: "eventual" }).resolveSession(requestWith(s.cookie))).toBeNull();
    expect(await manager().resolveSession(requestWith(s.cookie))).toBeNull();
    // The session's KV record itself was never touched: the epoch alone refuses it.
    expect(await revokedMarkOwner(env.SESSIONS, s.sessionId)).toBeNull();
  });

  it("an indexed member's pre-epoch session is refused by a fresh eventual-mode isolate at once", async () => {
    const { org, members } = await organizationWithMembers(2);
    await manager().endOrganizationSessions(org, { kind: "kill_switch", label: "ops" });
    for (const { session } of members) {
      expect(await manager({ revocation: "eventual" }).resolveSession(requestWith(session.cookie))).toBeNull();
    }
  });
});

describe("resolution stays off the organization's object", () => {
  it("resolving a session calls no organization object and reads each published epoch once per cache lifetime", async () => {
    const org = freshOrg();
    const userId = freshUser();
    const s = await signIn(manager(), userId, { organizations: [org, "org_acme"] });
    const organizations = counted(env.ORGANIZATIONS);
    const kv = counted(env.SESSIONS);
    let now = Date.now();
    for (const revocation of ["strict", "eventual"] as const) {
      const isolate = new SessionManager(kv.binding, env.SESSION_SECRET, {
        userSessions: env.USER_SESSIONS,
        organizations: organizations.binding,
        revocation,
        clock: () => now,
      });
      kv.calls.length = 0;
      for (let i = 0; i < 5; i++) expect(await isolate.resolveSession(requestWith(s.cookie))).not.toBeNull();
      expect(organizations.calls).toEqual([]);
      const epochReads = () => kv.calls.filter((c) => c.includes("org-epoch:"));
      expect(epochReads().sort()).toEqual([`get:${orgEpochKey("org_acme")}`, `get:${orgEpochKey(org)}`]);
      now += EPOCH_CACHE_MS;
      expect(await isolate.resolveSession(requestWith(s.cookie))).not.toBeNull();
      expect(epochReads()).toHaveLength(4);
      expect(organizations.calls).toEqual([]);
    }
  });
});
