/**
 * Every way a session ends early reaches the named app as one notice naming exactly the ended
 * sessions (issue 31): one session, the others, all of them, a logout, an organization's kill
 * switch, the identity provider's `session.revoked` and `user.deleted`, the session cap's eviction,
 * and a bound session used without its device's proof. Each notice is sent at once after the
 * commit (no alarm is run here: the objects' clock is a day ahead, so the runtime never fires one),
 * carries the timeline event's id and `sessionIds`, the reason and the actor's kind only, and
 * nothing of where the person was.
 */

import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionsEndedNotice } from "../../client-sdk/protocol/app-connections";
import type { SecurityEvent } from "../../client-sdk/protocol/security-record";
import { DbscClient, registrationRequestHeaders } from "../sessions/dbsc-client";
import { delivered, eventsOf, fresh, manager, ORIGIN, outbox, signIn, stubOf } from "./helpers";

let now = 0;
beforeEach(() => {
  now = Date.now() + 24 * 3600 * 1000;
  setObjectClock(() => now);
});
afterEach(() => setObjectClock(null));

const sorted = (ids: readonly string[]) => [...ids].sort();

/** The one notice the user's app got, checked against the event it came from. */
async function onlyNotice(userId: string, event: SecurityEvent): Promise<SessionsEndedNotice> {
  const notices = await delivered(userId);
  expect(notices).toHaveLength(1);
  const notice = notices[0]!;
  // Exactly the contract's fields: no IP, device, place or actor label.
  expect(Object.keys(notice).sort()).toEqual(["actor", "at", "id", "kind", "reason", "sessionIds", "userId"]);
  expect(notice).toMatchObject({ id: event.id, userId, at: event.at });
  expect(sorted(notice.sessionIds)).toEqual(sorted(event.sessionIds ?? []));
  return notice;
}

describe("a notice per revocation kind, naming exactly the ended sessions", () => {
  it("one session (revokeSession): its id, reason revoked, actor user", async () => {
    const user = fresh("user");
    const sessions = manager();
    const a = await signIn(sessions, user);
    await signIn(sessions, user);
    await sessions.revokeSession(a.sessionId);
    const [event] = await eventsOf(user, "session.revoked");
    expect(event!.sessionIds).toEqual([a.sessionId]);
    const notice = await onlyNotice(user, event!);
    expect(notice).toMatchObject({ sessionIds: [a.sessionId], kind: "revoked", reason: "revoked", actor: "user" });
  });

  it("revoke-others: every other id, not the kept one", async () => {
    const user = fresh("user");
    const sessions = manager();
    const [a, b, keep] = [await signIn(sessions, user), await signIn(sessions, user), await signIn(sessions, user)];
    await sessions.revokeOtherSessions(user, keep.sessionId);
    const [event] = await eventsOf(user, "session.revoked");
    expect(sorted(event!.sessionIds!)).toEqual(sorted([a.sessionId, b.sessionId]));
    const notice = await onlyNotice(user, event!);
    expect(notice).toMatchObject({ kind: "revoked", reason: "signed_out_elsewhere", actor: "user" });
    expect(notice.sessionIds).not.toContain(keep.sessionId);
  });

  it("revoke-all (revokeUser): every id", async () => {
    const user = fresh("user");
    const sessions = manager();
    const ids = [(await signIn(sessions, user)).sessionId, (await signIn(sessions, user)).sessionId];
    await sessions.revokeUser(user, { kind: "admin", label: "ops-token" });
    const [event] = await eventsOf(user, "session.revoked");
    const notice = await onlyNotice(user, event!);
    expect(sorted(notice.sessionIds)).toEqual(sorted(ids));
    // The actor's kind only: the admin token's label stays home.
    expect(notice).toMatchObject({ kind: "revoked", reason: "revoked_all", actor: "admin" });
  });

  it("logout: the signed-out session, as session.signed_out", async () => {
    const user = fresh("user");
    const sessions = manager();
    const a = await signIn(sessions, user);
    await sessions.destroySession(a.sessionId);
    const [event] = await eventsOf(user, "session.signed_out");
    const notice = await onlyNotice(user, event!);
    expect(notice).toMatchObject({ sessionIds: [a.sessionId], kind: "revoked", reason: "logout" });
  });

  it("an organization's kill switch: each member's object tells the app of that member's sessions", async () => {
    const org = fresh("org");
    // Issued a minute before the switch (the objects' clock stands a day ahead of the manager's).
    const issued = manager({ clock: () => Date.now() - 60_000 });
    const members = [fresh("user"), fresh("user")];
    const ids = new Map<string, string[]>();
    for (const userId of members) {
      ids.set(userId, [
        (await signIn(issued, userId, { organizations: [org] })).sessionId,
        (await signIn(issued, userId, { organizations: [org] })).sessionId,
      ]);
    }
    const bystander = fresh("user");
    await signIn(issued, bystander, { organizations: ["org_elsewhere"] });
    await manager().endOrganizationSessions(org, { kind: "kill_switch", label: "secops" });
    for (const userId of members) {
      const [event] = await eventsOf(userId, "session.revoked");
      const notice = await onlyNotice(userId, event!);
      expect(sorted(notice.sessionIds)).toEqual(sorted(ids.get(userId)!));
      expect(notice).toMatchObject({ kind: "revoked", reason: "revoked_all", actor: "kill_switch" });
    }
    expect(await delivered(bystander)).toEqual([]);
  });

  it("the identity provider's session.revoked (its sid) and user.deleted (every session)", async () => {
    const user = fresh("user");
    const sessions = manager();
    const bySid = await signIn(sessions, user, { providerSessionId: "session_provider_1" });
    const rest = [(await signIn(sessions, user)).sessionId, (await signIn(sessions, user)).sessionId];
    const stub = stubOf(user);
    await stub.applyProviderEvent({
      id: fresh("event"),
      type: "session.revoked",
      occurredAt: now,
      providerSessionId: "session_provider_1",
    });
    const [first] = await eventsOf(user, "session.revoked");
    const notice = await onlyNotice(user, first!);
    expect(notice).toMatchObject({ sessionIds: [bySid.sessionId], reason: "provider", actor: "provider" });

    await stub.applyProviderEvent({ id: fresh("event"), type: "user.deleted", occurredAt: now });
    const [deleted] = await eventsOf(user, "session.revoked");
    const notices = await delivered(user);
    expect(notices).toHaveLength(2);
    expect(notices[1]).toMatchObject({ id: deleted!.id, reason: "user_deleted", actor: "provider" });
    expect(sorted(notices[1]!.sessionIds)).toEqual(sorted(rest));
  });

  it("a deactivation in the organization's directory (dsync.user.updated / .deleted): reason user_deactivated", async () => {
    const user = fresh("user");
    const sessions = manager();
    const ids = [(await signIn(sessions, user)).sessionId, (await signIn(sessions, user)).sessionId];
    // Both signed in to org_acme (`signIn`'s default), the directory's organization.
    await stubOf(user).applyProviderEvent({
      id: fresh("event"),
      type: "dsync.user.updated",
      occurredAt: now,
      organizationId: "org_acme",
    });
    const [event] = await eventsOf(user, "session.revoked");
    const notice = await onlyNotice(user, event!);
    expect(notice).toMatchObject({ kind: "revoked", reason: "user_deactivated", actor: "provider" });
    expect(sorted(notice.sessionIds)).toEqual(sorted(ids));
  });

  it("the session cap's eviction of the oldest: the evicted id, actor policy", async () => {
    const user = fresh("user");
    const sessions = manager({ sessionPolicy: { maxSessions: 1, onLimit: "evict-oldest" } });
    const oldest = await signIn(sessions, user);
    await signIn(sessions, user);
    const [event] = await eventsOf(user, "session.revoked");
    const notice = await onlyNotice(user, event!);
    expect(notice).toMatchObject({
      sessionIds: [oldest.sessionId],
      kind: "revoked",
      reason: "revoked",
      actor: "policy",
    });
  });

  it("device binding on: a bound session used without its device's proof is a device_proof_missing notice", async () => {
    const user = fresh("user");
    const sessions = manager({ deviceBinding: "opportunistic", clock: () => now });
    const s = await signIn(sessions, user);
    const other = await signIn(sessions, user);
    const offer = await sessions.deviceRegistrationHeader(user, s.sessionId);
    const device = await DbscClient.create("ES256");
    const challenge = /challenge="([^"]+)"/.exec(offer ?? "")?.[1] ?? "";
    const registration = registrationRequestHeaders(await device.registrationProof(challenge), "chrome");
    registration.set("Cookie", s.cookie);
    const bound = await sessions.registerDevice(
      new Request(`${ORIGIN}/auth/dbsc/register`, { method: "POST", headers: registration }),
    );
    expect(bound.status).toBe(200);
    // The bound session's cookie alone, with no word from the browser: a copied cookie, likely.
    expect(await sessions.resolveSession(new Request(`${ORIGIN}/`, { headers: { Cookie: s.cookie } }))).toBeNull();
    const refused = (await eventsOf(user, "session.refused")).filter((e) => e.detail.reason === "device_proof_missing");
    expect(refused).toHaveLength(1);
    expect(refused[0]!.sessionIds).toEqual([s.sessionId]);
    const notice = await onlyNotice(user, refused[0]!);
    expect(notice).toEqual({
      id: refused[0]!.id,
      userId: user,
      sessionIds: [s.sessionId],
      kind: "device_proof_missing",
      reason: "device_proof_missing",
      actor: null,
      at: refused[0]!.at,
    });
    expect(notice.sessionIds).not.toContain(other.sessionId);
    // The session is not revoked: it stays active for its real device.
    expect(await stubOf(user).isActive(s.sessionId)).toBe(true);
  });

  it("no notice for the events that end nothing (a sign-in, a refused use of a revoked session)", async () => {
    const user = fresh("user");
    const sessions = manager();
    const a = await signIn(sessions, user);
    expect((await outbox(user)).filter((r) => r.destination.startsWith("app:"))).toEqual([]);
    await sessions.revokeSession(a.sessionId);
    await delivered(user);
    expect(await stubOf(user).recordRefused(a.sessionId, {}, "revoked")).toBe(true);
    expect((await outbox(user)).filter((r) => r.destination.startsWith("app:"))).toEqual([]);
    expect(await delivered(user)).toHaveLength(1);
  });
});
