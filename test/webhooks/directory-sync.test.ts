/**
 * WorkOS Directory Sync through POST /webhooks/identity: a directory user deactivated
 * (`dsync.user.updated` at state `inactive`) or removed from the directory (`dsync.user.deleted`)
 * ends every session of the person who signed in here with its email (the email directory), with
 * reason `user_deactivated` and the event type as the provider actor's label.
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
 * A known limit, by design for now: the email directory is global, so a directory that names an
 * address ends the sessions of whoever signed in here with it, whatever their organization.
 */
import { env } from "cloudflare:workers";
import {
  type DirectoryUserResponse,
  type DsyncUserDeletedEventResponse,
  type DsyncUserUpdatedEventResponse,
  WorkOS,
} from "@workos-inc/node";
import { describe, expect, it } from "vitest";
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from "../../scripts/local-idp/webhook-signature";
import { brokenKV } from "../faults/broken";
import { openTab, withTimeout } from "../sessions/helpers";
import { hasLiveRecord } from "../support/kv-records";
import { ACME, deliver, freshEventId, freshUser, manager, newSession, stubOf } from "./helpers";
import { authApplication } from "./worker";

const req = (cookie: string) => new Request("https://auth.example.com/", { headers: { Cookie: cookie } });

/** The address `newSession` signs the user in with (helpers.ts `identity`), so the directory knows it. */
const emailOf = (userId: string) => `${userId}@acme.test`;

/** A directory user as WorkOS sends it (snake_case; the SDK's `DirectoryUserResponse`). */
function directoryUser(email: string | null, state: "active" | "inactive"): DirectoryUserResponse {
  return {
    object: "directory_user",
    id: `directory_user_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
    directory_id: "directory_01ACMEOKTA0000000000000000",
    organization_id: ACME,
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

function updated(email: string | null, state: "active" | "inactive", id = freshEventId()): string {
  const event: DsyncUserUpdatedEventResponse = {
    id,
    event: "dsync.user.updated",
    data: {
      ...directoryUser(email, state),
      previous_attributes: { state: state === "inactive" ? "active" : "inactive" },
    },
    created_at: new Date().toISOString(),
  };
  return JSON.stringify(event);
}

function deleted(email: string | null, id = freshEventId()): string {
  const event: DsyncUserDeletedEventResponse = {
    id,
    event: "dsync.user.deleted",
    data: directoryUser(email, "inactive"),
    created_at: new Date().toISOString(),
  };
  return JSON.stringify(event);
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
  it("constructEvent gives data.state and data.email (the primary email) as the route reads them", async () => {
    const sdk = new WorkOS("sk_test_unused", { clientId: "client_unused" });
    const secret = "whsec_fixture";
    for (const [payload, type] of [
      [updated("ada@acme.test", "inactive"), "dsync.user.updated"],
      [deleted("ada@acme.test"), "dsync.user.deleted"],
    ] as const) {
      const sigHeader = await signWebhook(payload, secret, Date.now());
      const event = await sdk.webhooks.constructEvent({ payload, sigHeader, secret });
      expect(event.event).toBe(type);
      expect(event.data).toMatchObject({ object: "directory_user", email: "ada@acme.test", state: "inactive" });
      expect(event.createdAt).toEqual(expect.any(String));
    }
  });
});

describe("dsync.user.updated", () => {
  it("to state inactive: every session of the person ends (KV, refused, tabs), reason user_deactivated", async () => {
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
  it("ends every session of the person (they left the directory), label dsync.user.deleted", async () => {
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

describe("idempotency", () => {
  it("a replayed event id is applied once: a session signed in after it survives the replay", async () => {
    const user = freshUser();
    await newSession(user);
    const id = freshEventId();
    const first = await deliver(updated(emailOf(user), "inactive", id));
    expect(first.body).toEqual({ received: true, handled: true });
    // Reactivated and signed in again (only to prove the replay is not applied a second time).
    const again = await newSession(user);
    const replay = await deliver(updated(emailOf(user), "inactive", id));
    expect(replay.res.status).toBe(200);
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
  ])("%s: 400 malformed_body, never 500", async (_, payload) => {
    const { res, body } = await deliver(payload());
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: "malformed_body", message: expect.any(String) });
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
