/**
 * WorkOS Directory Sync through POST /webhooks/identity: a directory user deactivated
 * (`dsync.user.updated` at state `inactive`) or removed from the directory (`dsync.user.deleted`)
 * ends the sessions of the person who signed in here with its email (the email directory) that are
 * in the name of the directory's organization (`organization_id`), with reason `user_deactivated`
 * and the event type as the provider actor's label; only if that person is a member of that
 * organization here, since the email directory is shared by every organization.
 *
 * Not against WorkOS's emulator: `workos/emulate` 0.14.0 cannot send these events. It has no way
 * to make a directory or a directory user (no seed key, no create or update route; only GET
 * /directory_users and DELETE /directories/:id), so its directory-user hooks never fire, and
 * when they would they name the events `directory_user.updated` / `directory_user.deleted`
 * (dist/emulate/workos/constants.js), not the `dsync.user.*` WorkOS sends and the SDK
 * deserializes. So the payloads are built here exactly as the SDK's wire types say
 * (`DsyncUserUpdatedEventResponse`, `DsyncUserDeletedEventResponse`: tsc checks every fixture
 * against them), and the first test runs them through the SDK's own `constructEvent` to show the
 * fields we read come out as we read them. Signed like every test here, with WorkOS's scheme.
 *
 * The guard (durable-objects/user-sessions/organization-controls/deactivation.ts): another
 * organization's directory listing this person's address ends nothing and is answered
 * `handled: false, reason: "not_member"`; a person in two organizations loses only the sessions of
 * the one whose directory deactivated them (and those signed in to no organization that carry its
 * membership), never the other's.
 */
import { env } from "cloudflare:workers";
import {
  type DirectoryUserResponse,
  type DsyncUserDeletedEventResponse,
  type DsyncUserUpdatedEventResponse,
  WorkOS,
} from "@workos-inc/node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from "../../scripts/local-idp/webhook-signature";
import { brokenKV } from "../faults/broken";
import { openTab, staysOpen, withTimeout } from "../sessions/helpers";
import { hasLiveRecord } from "../support/kv-records";
import {
  ACME,
  applyDirect,
  deliver,
  freshEventId,
  freshUser,
  GLOBEX,
  identity,
  manager,
  membershipData,
  newSession,
  sendEvent,
  storedMemberships,
  stubOf,
} from "./helpers";
import { authApplication } from "./worker";

const req = (cookie: string) => new Request("https://auth.example.com/", { headers: { Cookie: cookie } });

/** The address `newSession` signs the user in with (helpers.ts `identity`), so the directory knows it. */
const emailOf = (userId: string) => `${userId}@acme.test`;

/** A directory user as WorkOS sends it (snake_case; the SDK's `DirectoryUserResponse`), of ACME's directory by default. */
function directoryUser(
  email: string | null,
  state: "active" | "inactive",
  organization: string | null = ACME,
): DirectoryUserResponse {
  return {
    object: "directory_user",
    id: `directory_user_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
    directory_id: "directory_01ACMEOKTA0000000000000000",
    organization_id: organization,
    raw_attributes: {},
    custom_attributes: {},
    idp_id: "00u1a2b3c4d5e6f7g8h9",
    first_name: "Test",
    email,
    last_name: "Person",
    state,
    created_at: "2024-01-15T09:00:00.000Z",
    updated_at: new Date().toISOString(),
  };
}

interface Sent {
  id?: string;
  /** The directory's organization (`organization_id`). Default ACME. */
  organization?: string | null;
  /** `created_at`, ms. Default now. */
  at?: number;
}

function updated(email: string | null, state: "active" | "inactive", options: Sent = {}): string {
  const event: DsyncUserUpdatedEventResponse = {
    id: options.id ?? freshEventId(),
    event: "dsync.user.updated",
    data: {
      ...directoryUser(email, state, options.organization),
      previous_attributes: { state: state === "inactive" ? "active" : "inactive" },
    },
    created_at: new Date(options.at ?? Date.now()).toISOString(),
  };
  return JSON.stringify(event);
}

function deleted(email: string | null, options: Sent = {}): string {
  const event: DsyncUserDeletedEventResponse = {
    id: options.id ?? freshEventId(),
    event: "dsync.user.deleted",
    data: directoryUser(email, "inactive", options.organization),
    created_at: new Date(options.at ?? Date.now()).toISOString(),
  };
  return JSON.stringify(event);
}

/**
 * Signs `userId` in as a member of `memberOf` (role member), to `tenant` (one of them) or to no
 * organization; returns the session id and cookie.
 */
async function signInTo(userId: string, tenant: string | undefined, memberOf: string[]) {
  const user = {
    ...identity(userId),
    memberships: memberOf.map((organizationId) => ({
      organizationId,
      organizationSlug: organizationId === ACME ? "acme" : "globex",
      role: "member",
    })),
  };
  const { sessionId, response } = await manager().createSession(user, tenant);
  return { sessionId, cookie: response.headers.get("Set-Cookie")!.split(";")[0]! };
}

/** The user's `session.revoked` timeline entries: actor and the reason in `detail`. */
async function revocations(userId: string) {
  return (await manager().timeline(userId)).events
    .filter((e) => e.type === "session.revoked")
    .map((e) => ({ actor: e.actor, reason: e.detail.reason, sessions: e.detail.sessions }));
}

async function stillSignedIn(userId: string, cookie: string): Promise<boolean> {
  return (await manager().resolveUser(req(cookie)))?.id === userId;
}

describe("the fixtures, through the SDK", () => {
  it("constructEvent gives data.state, data.email (the primary email) and data.organizationId as the route reads them", async () => {
    const sdk = new WorkOS("sk_test_unused", { clientId: "client_unused" });
    const secret = "whsec_fixture";
    for (const [payload, type] of [
      [updated("ada@acme.test", "inactive"), "dsync.user.updated"],
      [deleted("ada@acme.test"), "dsync.user.deleted"],
    ] as const) {
      const sigHeader = await signWebhook(payload, secret, Date.now());
      const event = await sdk.webhooks.constructEvent({ payload, sigHeader, secret });
      expect(event.event).toBe(type);
      expect(event.data).toMatchObject({
        object: "directory_user",
        email: "ada@acme.test",
        state: "inactive",
        organizationId: ACME,
      });
      expect(event.createdAt).toEqual(expect.any(String));
    }
  });
});

describe("dsync.user.updated", () => {
  it("to state inactive: a member's sessions in the directory's organization end (KV, refused, tabs), reason user_deactivated", async () => {
    const user = freshUser();
    const a = await newSession(user, "session_01DSA");
    const b = await newSession(user, "session_01DSB");
    const tabA = await openTab(user, a.cookie);
    const tabB = await openTab(user, b.cookie);
    const { res, body } = await deliver(updated(emailOf(user), "inactive"));
    expect(res.status).toBe(200);
    expect(body).toEqual({ received: true, handled: true });
    for (const tab of [tabA, tabB]) {
      expect(await withTimeout(tab.next("session.revoked"))).toMatchObject({ reason: "user_deactivated" });
      expect((await withTimeout(tab.closed)).code).toBe(4001);
    }
    for (const s of [a, b]) {
      expect(await hasLiveRecord(env.SESSIONS, s.sessionId)).toBe(false);
      expect(await stillSignedIn(user, s.cookie)).toBe(false);
    }
    expect(await stubOf(user).stats()).toMatchObject({ sessions: 0, tombstones: 2, sockets: 0 });
    expect(await revocations(user)).toEqual([
      { actor: { kind: "provider", label: "dsync.user.updated" }, reason: "user_deactivated", sessions: 2 },
    ]);
  });

  it("matches the email whatever its case (the directory keeps addresses lower-cased)", async () => {
    const user = freshUser();
    const s = await newSession(user);
    await deliver(updated(emailOf(user).toUpperCase(), "inactive"));
    expect(await stillSignedIn(user, s.cookie)).toBe(false);
  });

  it("to state active: acknowledged, ignored, nothing changed", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const { res, body } = await deliver(updated(emailOf(user), "active"));
    expect(res.status).toBe(200);
    expect(body).toEqual({ received: true, handled: false });
    expect(await stillSignedIn(user, s.cookie)).toBe(true);
    expect(await stubOf(user).providerEventStats()).toMatchObject({ processedEvents: 0 });
    expect(await revocations(user)).toEqual([]);
  });

  it("to a state the SDK does not name (a future one): ignored, like any state but inactive", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const payload = JSON.parse(updated(emailOf(user), "inactive")) as { data: { state: string } };
    payload.data.state = "suspended";
    const { res, body } = await deliver(JSON.stringify(payload));
    expect(res.status).toBe(200);
    expect(body).toEqual({ received: true, handled: false });
    expect(await stillSignedIn(user, s.cookie)).toBe(true);
  });
});

describe("dsync.user.deleted", () => {
  it("ends the member's sessions in the directory's organization (they left the directory), label dsync.user.deleted", async () => {
    const user = freshUser();
    const a = await newSession(user);
    const b = await newSession(user);
    const tab = await openTab(user, a.cookie);
    const { res, body } = await deliver(deleted(emailOf(user)));
    expect(res.status).toBe(200);
    expect(body).toEqual({ received: true, handled: true });
    expect(await withTimeout(tab.next("session.revoked"))).toMatchObject({ reason: "user_deactivated" });
    for (const s of [a, b]) {
      expect(await hasLiveRecord(env.SESSIONS, s.sessionId)).toBe(false);
      expect(await stillSignedIn(user, s.cookie)).toBe(false);
    }
    expect(await revocations(user)).toEqual([
      { actor: { kind: "provider", label: "dsync.user.deleted" }, reason: "user_deactivated", sessions: 2 },
    ]);
  });
});

describe("who a directory user is", () => {
  it("an email nobody signed in with: acknowledged (200, handled false), nobody's sessions touched", async () => {
    const user = freshUser();
    const s = await newSession(user);
    for (const payload of [updated(`nobody-${user}@acme.test`, "inactive"), deleted(`nobody-${user}@acme.test`)]) {
      const { res, body } = await deliver(payload);
      expect(res.status).toBe(200);
      expect(body).toEqual({ received: true, handled: false });
    }
    expect(await stillSignedIn(user, s.cookie)).toBe(true);
    expect(await stubOf(user).providerEventStats()).toMatchObject({ processedEvents: 0 });
  });

  it("a directory user without an email (the SDK's null): acknowledged, ignored", async () => {
    for (const payload of [updated(null, "inactive"), deleted(null)]) {
      const { res, body } = await deliver(payload);
      expect(res.status).toBe(200);
      expect(body).toEqual({ received: true, handled: false });
    }
  });

  it("another person's sessions stay: only the matched user's object acts", async () => {
    const gone = freshUser();
    const stays = freshUser();
    await newSession(gone);
    const other = await newSession(stays);
    await deliver(updated(emailOf(gone), "inactive"));
    expect(await stillSignedIn(stays, other.cookie)).toBe(true);
    expect(await revocations(stays)).toEqual([]);
  });
});

describe("only in the directory's organization (the email directory is shared by every organization)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("another organization's directory naming a member of ACME only: nothing ends, 200 not_member, a warning without the email", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const tab = await openTab(user, s.cookie);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const id = freshEventId();
    for (const payload of [
      updated(emailOf(user), "inactive", { id, organization: GLOBEX }),
      deleted(emailOf(user), { organization: GLOBEX }),
    ]) {
      const { res, body } = await deliver(payload);
      expect(res.status).toBe(200);
      expect(body).toEqual({ received: true, handled: false, reason: "not_member" });
    }
    expect(await stillSignedIn(user, s.cookie)).toBe(true);
    expect(await hasLiveRecord(env.SESSIONS, s.sessionId)).toBe(true);
    expect(await stubOf(user).stats()).toMatchObject({ sessions: 1, tombstones: 0 });
    expect(await staysOpen(tab)).toBe("open");
    tab.ws.close();
    expect(await revocations(user)).toEqual([]);
    // Refused, yet recorded: WorkOS delivering it again is a duplicate, never a second look.
    expect(await stubOf(user).providerEventStats()).toMatchObject({ processedEvents: 2 });
    const again = await deliver(updated(emailOf(user), "inactive", { id, organization: GLOBEX }));
    expect(again.body).toEqual({ received: true, handled: false, reason: "duplicate" });
    const refusals = warn.mock.calls.map((args) => args.join(" ")).filter((line) => line.includes("not a member"));
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toContain(id);
    expect(refusals[0]).toContain(GLOBEX);
    // The address (and so the user id in it) never reaches the log.
    for (const line of refusals) expect(line).not.toContain(user);
  });

  it("a pending membership there does not count (WorkOS invites any address a directory lists outside its domains)", async () => {
    const user = freshUser();
    const s = await newSession(user);
    await sendEvent("organization_membership.created", membershipData(user, null, { org: GLOBEX, status: "pending" }));
    expect(await stubOf(user).providerEventStats()).toMatchObject({ providerMemberships: 1 });
    const { body } = await deliver(deleted(emailOf(user), { organization: GLOBEX }));
    expect(body).toEqual({ received: true, handled: false, reason: "not_member" });
    expect(await stillSignedIn(user, s.cookie)).toBe(true);
    expect(await revocations(user)).toEqual([]);
  });

  it("a member of two organizations deactivated by one: its sessions and those signed in to none that carry it end; the other's stay", async () => {
    const user = freshUser();
    const both = [ACME, GLOBEX];
    const inAcme = await signInTo(user, ACME, both);
    const inGlobex = await signInTo(user, GLOBEX, both);
    const inNoneCarryingGlobex = await signInTo(user, undefined, both);
    const inNoneAcmeOnly = await signInTo(user, undefined, [ACME]);
    const { res, body } = await deliver(updated(emailOf(user), "inactive", { organization: GLOBEX }));
    expect(res.status).toBe(200);
    expect(body).toEqual({ received: true, handled: true });
    expect(await stillSignedIn(user, inGlobex.cookie)).toBe(false);
    expect(await stillSignedIn(user, inNoneCarryingGlobex.cookie)).toBe(false);
    expect(await stillSignedIn(user, inAcme.cookie)).toBe(true);
    expect(await stillSignedIn(user, inNoneAcmeOnly.cookie)).toBe(true);
    expect(await revocations(user)).toEqual([
      { actor: { kind: "provider", label: "dsync.user.updated" }, reason: "user_deactivated", sessions: 2 },
    ]);
    // The session signed in to ACME keeps GLOBEX's role until WorkOS's own membership event (which
    // directory provisioning sends on deprovisioning) takes it out, as for any removed membership.
    expect((await storedMemberships(inAcme.sessionId))?.map((m) => m.organizationId)).toEqual(both);
    await sendEvent("organization_membership.deleted", membershipData(user, null, { org: GLOBEX, status: "inactive" }));
    expect((await storedMemberships(inAcme.sessionId))?.map((m) => m.organizationId)).toEqual([ACME]);
    expect(await stillSignedIn(user, inAcme.cookie)).toBe(true);
  });

  it("ACME's directory deactivating that person ends only ACME's sessions in turn", async () => {
    const user = freshUser();
    const inAcme = await signInTo(user, ACME, [ACME, GLOBEX]);
    const inGlobex = await signInTo(user, GLOBEX, [ACME, GLOBEX]);
    expect((await deliver(deleted(emailOf(user)))).body).toEqual({ received: true, handled: true });
    expect(await stillSignedIn(user, inAcme.cookie)).toBe(false);
    expect(await stillSignedIn(user, inGlobex.cookie)).toBe(true);
  });

  it("an active member there by the provider's word, signed in elsewhere only: applied, nothing of theirs is in its name", async () => {
    const user = freshUser();
    const s = await newSession(user);
    await applyDirect(user, {
      id: freshEventId(),
      type: "organization_membership.created",
      occurredAt: Date.now() - 1_000,
      organizationId: GLOBEX,
      organizationSlug: "globex",
      role: "member",
    });
    const { body } = await deliver(updated(emailOf(user), "inactive", { organization: GLOBEX }));
    expect(body).toEqual({ received: true, handled: true });
    expect(await stillSignedIn(user, s.cookie)).toBe(true);
    expect(await revocations(user)).toEqual([]);
  });

  it("the membership removed by WorkOS first: the removal already took the organization out of the session; the deactivation finds nothing of it", async () => {
    const user = freshUser();
    const s = await newSession(user);
    await sendEvent("organization_membership.deleted", membershipData(user, null, { status: "inactive" }));
    expect(await storedMemberships(s.sessionId)).toEqual([]);
    const { body } = await deliver(updated(emailOf(user), "inactive"));
    expect(body).toEqual({ received: true, handled: false, reason: "not_member" });
    // Signed in still, to no organization and with no membership: nothing of ACME's is left in it.
    expect(await stillSignedIn(user, s.cookie)).toBe(true);
    const record = await env.SESSIONS.get<{ organizationId?: string }>(`sess:${s.sessionId}`, "json");
    expect(record?.organizationId).toBeUndefined();
  });

  it("the membership removed by WorkOS after: the deactivation ended the sessions; the removal ends nothing more", async () => {
    const user = freshUser();
    const s = await newSession(user);
    expect((await deliver(updated(emailOf(user), "inactive"))).body).toEqual({ received: true, handled: true });
    const removal = await sendEvent(
      "organization_membership.deleted",
      membershipData(user, null, { status: "inactive" }),
    );
    expect(removal.res.status).toBe(200);
    expect(await stillSignedIn(user, s.cookie)).toBe(false);
    expect(await revocations(user)).toHaveLength(1);
  });

  it("a membership event newer than the deactivation that keeps the person a member wins: stale, nothing ends", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const at = Date.now();
    await applyDirect(user, {
      id: freshEventId(),
      type: "organization_membership.updated",
      occurredAt: at,
      organizationId: ACME,
      organizationSlug: "acme",
      role: "admin",
    });
    const { body } = await deliver(updated(emailOf(user), "inactive", { at: at - 60_000 }));
    expect(body).toEqual({ received: true, handled: false, reason: "stale" });
    expect(await stillSignedIn(user, s.cookie)).toBe(true);
  });

  it("a directory of no organization (organization_id null): acknowledged with the reason, a warning, nothing ends", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { res, body } = await deliver(deleted(emailOf(user), { organization: null }));
    expect(res.status).toBe(200);
    expect(body).toEqual({ received: true, handled: false, reason: "no_organization" });
    expect(await stillSignedIn(user, s.cookie)).toBe(true);
    expect(await stubOf(user).providerEventStats()).toMatchObject({ processedEvents: 0 });
    expect(warn.mock.calls.map((args) => args.join(" ")).some((l) => l.includes("no organization"))).toBe(true);
  });

  it("the object refuses a deactivation without an organization (an older caller): not_member, nothing ends", async () => {
    const user = freshUser();
    const s = await newSession(user);
    const event = { id: freshEventId(), type: "dsync.user.updated", occurredAt: Date.now() };
    const result = await applyDirect(user, event as Parameters<typeof applyDirect>[1]);
    expect(result).toMatchObject({ outcome: "not_member", revoked: 0 });
    expect(await stillSignedIn(user, s.cookie)).toBe(true);
  });
});

describe("idempotency", () => {
  it("a replayed event id is applied once: a session signed in after it survives the replay", async () => {
    const user = freshUser();
    await newSession(user);
    const id = freshEventId();
    const first = await deliver(updated(emailOf(user), "inactive", { id }));
    expect(first.body).toEqual({ received: true, handled: true });
    // Reactivated and signed in again (only to prove the replay is not applied a second time).
    const again = await newSession(user);
    const replay = await deliver(updated(emailOf(user), "inactive", { id }));
    expect(replay.res.status).toBe(200);
    expect(replay.body).toEqual({ received: true, handled: false, reason: "duplicate" });
    expect(await stillSignedIn(user, again.cookie)).toBe(true);
    expect(await stubOf(user).providerEventStats()).toMatchObject({ processedEvents: 1 });
    expect(await revocations(user)).toHaveLength(1);
  });
});

describe("refused or failed (nothing changed)", () => {
  const signed = (data: unknown, type = "dsync.user.updated") =>
    JSON.stringify({ id: freshEventId(), event: type, data, created_at: new Date().toISOString() });

  it.each([
    [
      "an updated user without a state",
      () => signed({ ...directoryUser("x@acme.test", "inactive"), state: undefined }),
    ],
    ["a state that is not a string", () => signed({ ...directoryUser("x@acme.test", "inactive"), state: 0 })],
    ["an inactive user without an email field", () => signed({ ...directoryUser(null, "inactive"), email: undefined })],
    ["an email that is not a string", () => signed({ ...directoryUser(null, "inactive"), email: ["x@acme.test"] })],
    ["an empty email", () => signed(directoryUser("  ", "inactive"))],
    ["an email over 320 characters", () => signed(directoryUser(`${"x".repeat(320)}@acme.test`, "inactive"))],
    ["a deleted user with an email that is not a string", () => signed({ email: 42 }, "dsync.user.deleted")],
    ["data that is not a directory user (null)", () => signed(null)],
    ["data that is a list", () => signed([directoryUser("x@acme.test", "inactive")], "dsync.user.deleted")],
    [
      "an inactive user without an organization_id field",
      () => signed({ ...directoryUser("x@acme.test", "inactive"), organization_id: undefined }),
    ],
    [
      "an organization_id that is not a string",
      () => signed({ ...directoryUser("x@acme.test", "inactive"), organization_id: 7 }),
    ],
    [
      "an organization_id that is not an id",
      () => signed({ ...directoryUser("x@acme.test", "inactive"), organization_id: "org_01/../ACME" }),
    ],
    ["an empty organization_id", () => signed(directoryUser("x@acme.test", "inactive", ""), "dsync.user.deleted")],
  ])("%s: 400 malformed_body, never 500", async (_, payload) => {
    const { res, body } = await deliver(payload());
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: "malformed_body", message: expect.any(String) });
  });

  it("the person's object unreachable through every try: 503 session_store_unavailable, so WorkOS delivers again", async () => {
    const user = freshUser();
    await newSession(user);
    const unreachable = {
      idFromName: (name: string) => env.USER_SESSIONS.idFromName(name),
      get: () => ({
        applyProviderEvent: () => Promise.reject(Object.assign(new Error("object unreachable"), { retryable: true })),
      }),
    } as unknown as typeof env.USER_SESSIONS;
    const app = authApplication({ ...env, USER_SESSIONS: unreachable });
    const payload = updated(emailOf(user), "inactive");
    const res = await app.fetch(
      new Request("https://auth.example.com/webhooks/identity", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          [WEBHOOK_SIGNATURE_HEADER]: await signWebhook(payload, env.IDENTITY_WEBHOOK_SECRET, Date.now()),
        },
        body: payload,
      }),
    );
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).not.toContain("object unreachable");
    expect(JSON.parse(text)).toEqual({ error: "session_store_unavailable", message: expect.any(String) });
  });

  it("the email directory unreadable (KV down): 503 session_store_unavailable, so WorkOS delivers again", async () => {
    const app = authApplication({ ...env, SESSIONS: brokenKV() });
    const payload = updated("someone@acme.test", "inactive");
    const res = await app.fetch(
      new Request("https://auth.example.com/webhooks/identity", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          [WEBHOOK_SIGNATURE_HEADER]: await signWebhook(payload, env.IDENTITY_WEBHOOK_SECRET, Date.now()),
        },
        body: payload,
      }),
    );
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).not.toContain("storage exploded");
    expect(JSON.parse(text)).toEqual({ error: "session_store_unavailable", message: expect.any(String) });
  });
});
