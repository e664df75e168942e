/**
 * The security record over the AuthService RPC entrypoint: a user's timeline and devices, receipts
 * by id, an organization's kill switch (with the caller's label as the actor), its lift, and its
 * session policy. Every argument is checked in the entrypoint: a bad id, cursor, limit, label,
 * actor or policy is a TypeError that never reaches storage; an actor a caller passes lands on the
 * timeline exactly as checked (no extra fields).
 */
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SessionPolicy } from "../../client-sdk/protocol/policy";
import type { RevocationActor } from "../../client-sdk/protocol/security-record";
import { AuthService } from "../../workers/auth/rpc/auth-service";
import { allEvents, eventsOf, freshOrg, freshUser, manager, organizationOf, requestWith, signIn } from "./helpers";

/** Rejects with a TypeError (kept as such across RPC) whose message matches. */
async function typeError(call: Promise<unknown>, message: RegExp): Promise<void> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, String(message)).toBeInstanceOf(TypeError);
  expect((error as Error).message).toMatch(message);
}

describe("AuthService: timeline, devices, receipts", () => {
  it("reads a user's timeline page by page and their devices", async () => {
    const user = freshUser();
    const sessions = manager();
    await signIn(sessions, user);
    await signIn(sessions, user);
    const service = exports.AuthService;
    const first = await service.timeline(user, { limit: 2 });
    expect(first.events.map((e) => e.type)).toEqual(["session.signed_in", "session.new_device"]);
    const rest = await service.timeline(user, { cursor: first.nextCursor, limit: 2 });
    expect(rest).toMatchObject({ events: [{ type: "session.signed_in" }], nextCursor: null });
    expect([...first.events, ...rest.events]).toEqual(await allEvents(user));
    expect(await service.timeline(user)).toEqual({ events: await allEvents(user), nextCursor: null });
    expect(await service.devices(user)).toEqual([
      expect.objectContaining({ device: "Firefox 140 on macOS", sessions: 2 }),
    ]);
  });

  it("revokes with a checked actor, answers the receipt id, and reads the receipt back", async () => {
    const user = freshUser();
    const s = await signIn(manager(), user);
    const service = exports.AuthService;
    const actor = { kind: "admin", label: "helpdesk", note: "not kept" } as RevocationActor;
    const result = await service.revokeSession(s.sessionId, actor);
    expect(result).toMatchObject({ revoked: 1 });
    const receipt = await service.receipt(result!.receiptId!);
    expect(receipt).toMatchObject({ id: result!.receiptId, actor: { kind: "admin", label: "helpdesk" }, revoked: 1 });
    expect(receipt!.actor).toEqual({ kind: "admin", label: "helpdesk" });
    const [revoked] = await eventsOf(user, "session.revoked");
    expect(revoked!.actor).toEqual({ kind: "admin", label: "helpdesk" });
    expect(await service.receipt(`rcpt.u.${user}.999`)).toBeNull();
    expect(await service.receipt(`rcpt.o.${freshOrg()}.1`)).toBeNull();
    // revokeUser's default actor names the calling service.
    await signIn(manager(), user);
    await service.revokeUser(user);
    expect((await eventsOf(user, "session.revoked"))[0]!.actor).toEqual({ kind: "admin", label: "service" });
  });

  it("refuses bad ids, cursors, limits and actors with a TypeError", async () => {
    const service = exports.AuthService;
    const user = freshUser();
    await typeError(service.timeline("a b"), /not a valid user id/);
    await typeError(service.timeline(user, { cursor: "42" }), /cursor/);
    await typeError(service.timeline(user, { cursor: 7 as unknown as string }), /cursor/);
    await typeError(service.timeline(user, { limit: 0 }), /limit/);
    await typeError(service.timeline(user, { limit: 101 }), /limit/);
    await typeError(service.timeline(user, { limit: 1.5 }), /limit/);
    await typeError(service.devices("x".repeat(129)), /not a valid user id/);
    await typeError(service.receipt("rcpt.x.user.1"), /receipt id/);
    await typeError(service.receipt(`rcpt.u.${user}`), /receipt id/);
    const s = await signIn(manager(), user);
    await typeError(
      service.revokeSession(s.sessionId, { kind: "hacker" } as unknown as RevocationActor),
      /actor\.kind/,
    );
    await typeError(service.revokeSession(s.sessionId, { kind: "admin", label: "two words" }), /actor\.label/);
    await typeError(service.revokeSession(s.sessionId, { kind: "admin", label: "x".repeat(65) }), /actor\.label/);
    await typeError(service.revokeUser(user, "admin" as unknown as RevocationActor), /actor\.kind/);
    // None of them reached the session.
    expect(await manager().resolveSession(requestWith(s.cookie))).not.toBeNull();
  });
});

describe("AuthService: an organization's kill switch and policy", () => {
  it("ends every member's sessions with the caller's label, lifts, and reads the epoch", async () => {
    const org = freshOrg();
    const users = [freshUser(), freshUser()];
    const issued = manager({ clock: () => Date.now() - 60_000 });
    const signIns = await Promise.all(users.map((u) => signIn(issued, u, { organizations: [org] })));
    const service = exports.AuthService;
    const receipt = await service.endOrganizationSessions(org, "incident-42");
    expect(receipt).toMatchObject({ members: 2, revoked: 2, actor: { kind: "kill_switch", label: "incident-42" } });
    expect(await service.receipt(receipt.id)).toEqual(receipt);
    for (const s of signIns) expect(await service.resolveUser(s.cookie)).toBeNull();
    for (const u of users) {
      expect((await eventsOf(u, "organization.sessions_ended"))[0]!.actor).toEqual({
        kind: "kill_switch",
        label: "incident-42",
      });
    }
    expect(await organizationOf(org).epoch()).toBe(receipt.at);
    await service.liftOrganizationSessions(org);
    expect(await organizationOf(org).epoch()).toBeNull();
    // The default label names the calling service.
    expect((await service.endOrganizationSessions(org)).actor).toEqual({ kind: "kill_switch", label: "service" });
  });

  it("reads, sets and clears an organization's policy", async () => {
    const org = freshOrg();
    const service = exports.AuthService;
    expect(await service.organizationPolicy(org)).toEqual({
      policy: { maxSessions: null, onLimit: "evict-oldest" },
      source: "default",
    });
    await service.setOrganizationPolicy(org, { maxSessions: 2, onLimit: "refuse-new", extra: true } as SessionPolicy);
    expect(await organizationOf(org).policy()).toEqual({ maxSessions: 2, onLimit: "refuse-new" });
    expect(await service.organizationPolicy(org)).toEqual({
      policy: { maxSessions: 2, onLimit: "refuse-new" },
      source: "operator",
    });
    await service.setOrganizationPolicy(org, { maxSessions: 3 } as SessionPolicy);
    expect(await organizationOf(org).policy()).toEqual({ maxSessions: 3, onLimit: "evict-oldest" });
    await service.setOrganizationPolicy(org, null);
    expect(await service.organizationPolicy(org)).toMatchObject({ source: "default" });
  });

  it("refuses bad organization ids, labels and policies with a TypeError, and changes nothing", async () => {
    const org = freshOrg();
    const service = exports.AuthService;
    await typeError(service.endOrganizationSessions("a b"), /organizationId/);
    await typeError(service.endOrganizationSessions(org, "no spaces allowed"), /label/);
    await typeError(service.endOrganizationSessions(org, ""), /label/);
    await typeError(service.liftOrganizationSessions("o".repeat(129)), /organizationId/);
    await typeError(service.organizationPolicy("a/b"), /organizationId/);
    const bad: unknown[] = [
      { maxSessions: 0 },
      { maxSessions: 1001 },
      { maxSessions: 2.5 },
      { maxSessions: "3" },
      { maxSessions: 3, onLimit: "kick-everyone" },
      "five",
      5,
    ];
    for (const policy of bad) {
      await typeError(service.setOrganizationPolicy(org, policy as SessionPolicy), /policy/);
    }
    expect(await organizationOf(org).epoch()).toBeNull();
    expect(await organizationOf(org).policy()).toBeNull();
  });

  it("without the ORGANIZATIONS binding, the organization methods are a TypeError", async () => {
    const { ORGANIZATIONS: _, ...unbound } = env;
    const service = new AuthService(createExecutionContext(), unbound as Cloudflare.Env);
    await typeError(service.endOrganizationSessions(freshOrg()), /no ORGANIZATIONS binding/);
    await typeError(service.organizationPolicy(freshOrg()), /no ORGANIZATIONS binding/);
    expect(await service.receipt(`rcpt.o.${freshOrg()}.1`)).toBeNull();
  });
});
