/**
 * Which events become app notices and how (durable-objects/user-sessions/app-connections/notices.ts),
 * as pure functions: only revocations, sign-outs and a missing device proof; the ids of a large
 * revocation split into chunks of MAX_NOTICE_SESSIONS, each with an id of its own; the receipt's
 * ids for an event stored before `sessionIds`; and the `apps` setting's checks, naming the option.
 */
import { describe, expect, it } from "vitest";
import { MAX_NOTICE_SESSIONS } from "../../client-sdk/protocol/app-connections";
import type { SecurityEvent } from "../../client-sdk/protocol/security-record";
import { checkApps, concernsApps, noticesOf } from "../../durable-objects/user-sessions/app-connections";

const base: SecurityEvent = {
  id: "evt_0123",
  seq: 7,
  userId: "user_a",
  type: "session.revoked",
  at: 1_700_000_000_000,
  sessionId: null,
  device: "Firefox 140 on macOS",
  ip: "203.0.113.7",
  location: { country: "DE", region: "Berlin", city: "Berlin", colo: "TXL" },
  actor: { kind: "admin", label: "ops-token" },
  detail: { receiptId: "rcpt.u.user_a.1", sessions: 2, reason: "revoked_all" },
};

describe("concernsApps", () => {
  it("takes revocations, sign-outs and a missing device proof, nothing else", () => {
    expect(concernsApps({ type: "session.revoked" })).toBe(true);
    expect(concernsApps({ type: "session.signed_out" })).toBe(true);
    expect(concernsApps({ type: "session.refused", detail: { reason: "device_proof_missing" } })).toBe(true);
    expect(concernsApps({ type: "session.refused", detail: { reason: "revoked" } })).toBe(false);
    expect(concernsApps({ type: "session.refused", detail: { reason: "device_refresh_skipped" } })).toBe(false);
    for (const type of ["session.signed_in", "organization.sessions_ended", "ratelimit.lockout"] as const) {
      expect(concernsApps({ type })).toBe(false);
    }
  });
});

describe("noticesOf", () => {
  it("one notice with the event's id, the ids, the reason and the actor's kind only", () => {
    const notices = noticesOf({ ...base, sessionIds: ["s1", "s2"] }, () => null);
    expect(notices).toEqual([
      {
        id: "evt_0123",
        userId: "user_a",
        sessionIds: ["s1", "s2"],
        kind: "revoked",
        reason: "revoked_all",
        actor: "admin",
        at: base.at,
      },
    ]);
  });

  it("splits a revocation of more than MAX_NOTICE_SESSIONS into chunks, each id its own", () => {
    const ids = Array.from({ length: MAX_NOTICE_SESSIONS * 2 + 5 }, (_, i) => `s${i}`);
    const notices = noticesOf({ ...base, sessionIds: ids }, () => null);
    expect(notices.map((n) => n.id)).toEqual(["evt_0123:1", "evt_0123:2", "evt_0123:3"]);
    expect(notices.map((n) => n.sessionIds.length)).toEqual([MAX_NOTICE_SESSIONS, MAX_NOTICE_SESSIONS, 5]);
    expect(notices.flatMap((n) => n.sessionIds)).toEqual(ids);
  });

  it("falls back to the session id, then the receipt's ids, for an event stored without sessionIds", () => {
    expect(noticesOf({ ...base, sessionId: "s9" }, () => ["never"])[0]!.sessionIds).toEqual(["s9"]);
    expect(noticesOf(base, () => ["s1", "s2"])[0]!.sessionIds).toEqual(["s1", "s2"]);
    expect(noticesOf(base, () => null)).toEqual([]);
  });

  it("a missing device proof: kind and reason device_proof_missing, no actor", () => {
    const refused: SecurityEvent = {
      ...base,
      type: "session.refused",
      sessionId: "s1",
      sessionIds: ["s1"],
      actor: null,
      detail: { reason: "device_proof_missing" },
    };
    expect(noticesOf(refused, () => null)[0]).toMatchObject({
      kind: "device_proof_missing",
      reason: "device_proof_missing",
      actor: null,
    });
    expect(noticesOf({ ...refused, detail: { reason: "revoked" } }, () => null)).toEqual([]);
  });
});

describe("checkApps", () => {
  it("accepts names and distinct binding names, and refuses the rest naming the option", () => {
    expect(checkApps({ chat: { binding: "APP_CHAT" }, "docs-2": { binding: "APP_DOCS" } }, "apps")).toEqual({
      chat: { binding: "APP_CHAT" },
      "docs-2": { binding: "APP_DOCS" },
    });
    expect(() => checkApps({ Chat: { binding: "APP_CHAT" } }, "createAuthWorker: apps")).toThrow(
      /createAuthWorker: apps: "Chat" is not an app name/,
    );
    expect(() => checkApps({ ["a".repeat(33)]: { binding: "X" } }, "apps")).toThrow(/is not an app name/);
    expect(() => checkApps({ chat: { binding: "not a name" } }, "apps")).toThrow(
      /apps\.chat\.binding must be a binding name/,
    );
    expect(() => checkApps({ chat: {} }, "apps")).toThrow(/apps\.chat\.binding/);
    expect(() => checkApps({ a: { binding: "APP" }, b: { binding: "APP" } }, "apps")).toThrow(
      /a and b both name the binding APP/,
    );
    expect(() => checkApps({ a: { binding: "SESSIONS" } }, "apps", ["SESSIONS"])).toThrow(
      /apps\.a\.binding SESSIONS is already the binding of another role/,
    );
    expect(() => checkApps([], "apps")).toThrow(/apps must be an object/);
  });
});
