// The account script's reader of the live channel (account/client/wire.ts) decodes what the session
// object sends exactly as superjson does (`decodeMessage`), without carrying superjson.
import * as fc from "fast-check";
import type { SecurityEvent } from "gatehouse-workers/client";
import { decodeMessage, encodeMessage, type LiveMessage } from "gatehouse-workers/durable-objects";
import superjson from "superjson";
import { describe, expect, it } from "vitest";
import { decodeLiveMessage } from "../../workers/auth/account/client/wire";

const EVENT: SecurityEvent = {
  id: "evt_1",
  seq: 7,
  userId: "user_1",
  type: "session.new_device",
  at: 1_767_225_600_000,
  sessionId: "sess.with.dots",
  device: "Firefox 140 on macOS",
  ip: null,
  location: { country: "PT", region: "Lisbon", city: "Lisbon", colo: "LIS" },
  actor: null,
  detail: { "org.id": "org_1", "back\\slash": true, n: 3, none: null },
};

const MESSAGES: LiveMessage[] = [
  { type: "session.revoked", sessionId: "s1", reason: "replaced", revokedAt: new Date(1_767_225_600_123) },
  {
    type: "session.updated",
    sessionId: "s1",
    memberships: [{ organizationId: "org_1", organizationSlug: "acme", role: "admin" }],
    updatedAt: new Date(0),
  },
  { type: "sessions.changed", at: new Date(1_767_225_600_000) },
  { type: "timeline.appended", event: EVENT },
  { type: "live.ready", sessionId: "s2" },
  { type: "pong", at: new Date(Number.NaN) },
];

describe("decodeLiveMessage (the account script's reader of the live channel)", () => {
  it.each(MESSAGES.map((m) => [m.type, m] as const))("reads %s as decodeMessage does", (_type, message) => {
    const text = encodeMessage(message);
    expect(decodeLiveMessage(text)).toStrictEqual(decodeMessage(text));
  });

  it("revives dates and undefined anywhere, under any key, as superjson does", () => {
    const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("a.b", "a\\b", "\\.", "..", "0", ""));
    const leaf = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.date({ noInvalidDate: true }),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
      array: fc.array(tie("node"), { maxLength: 4 }),
      object: fc.dictionary(
        key.filter((k) => !["__proto__", "prototype", "constructor"].includes(k)),
        tie("node"),
        { maxKeys: 4 },
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const text = superjson.stringify({ type: "live.ready", v });
        expect(decodeLiveMessage(text)).toStrictEqual(superjson.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses what is not one of our messages: other annotations, forbidden paths, not JSON", () => {
    for (const other of [{ n: 1n }, { m: new Map([["a", 1]]) }, { s: new Set([1]) }, { r: /x/ }]) {
      expect(() => decodeLiveMessage(superjson.stringify(other))).toThrow();
    }
    const polluting = JSON.stringify({ json: { a: "x" }, meta: { values: { "__proto__.a": ["undefined"] }, v: 1 } });
    expect(() => decodeLiveMessage(polluting)).toThrow();
    expect(() => decodeLiveMessage("not json")).toThrow();
  });
});
