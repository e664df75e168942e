/**
 * What arrives at `GatehouseRevocations` is checked before anything closes: the contract's shape
 * (parseNotice, a tagged result) for any value, and a refused notice is an `invalid_notice` error
 * thrown back to the auth worker, with no holder called. The entrypoint answers no HTTP.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { MAX_NOTICE_SESSIONS, parseNotice, type SessionsEndedNotice } from "gatehouse-workers/connections";
import { describe, expect, it } from "vitest";
import { freshRoom, freshUser, newSession, notice, open, stats } from "./helpers";

const valid: SessionsEndedNotice = notice("user_1", ["a".repeat(64)]);

describe("parseNotice", () => {
  it("accepts the contract's notices, deduplicating ids", () => {
    expect(parseNotice(valid)).toEqual({ ok: true, value: valid });
    const twice = { ...valid, sessionIds: ["x", "y", "x"] };
    expect(parseNotice(twice)).toEqual({ ok: true, value: { ...valid, sessionIds: ["x", "y"] } });
    expect(parseNotice({ ...valid, kind: "device_proof_missing", actor: null }).ok).toBe(true);
  });

  it("refuses every value that is not a notice (any value, or a notice with one field broken)", () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(parseNotice(value).ok).toBe(false);
      }),
    );
    const broken: Record<keyof SessionsEndedNotice, fc.Arbitrary<unknown>> = {
      id: fc.oneof(fc.constant(""), fc.integer(), fc.constant(null), fc.string({ minLength: 257, maxLength: 300 })),
      userId: fc.oneof(fc.constant(""), fc.constant(undefined), fc.array(fc.string())),
      sessionIds: fc.oneof(
        fc.constant([]),
        fc.constant(Array.from({ length: MAX_NOTICE_SESSIONS + 1 }, (_, i) => `s${i}`)),
        fc.array(fc.oneof(fc.constant(""), fc.integer(), fc.constant(null)), { minLength: 1 }),
        fc.string(),
      ),
      kind: fc.string().filter((k) => k !== "revoked" && k !== "device_proof_missing"),
      reason: fc.oneof(fc.constant(""), fc.constant("Revoked!"), fc.integer(), fc.constant(null)),
      actor: fc.oneof(fc.constant(""), fc.constant("Admin Token"), fc.integer()),
      at: fc.oneof(fc.constant(Number.NaN), fc.constant(-1), fc.constant(Infinity), fc.string()),
    };
    fc.assert(
      fc.property(
        fc
          .constantFrom(...(Object.keys(broken) as (keyof SessionsEndedNotice)[]))
          .chain((field) => broken[field].map((bad) => ({ field, bad }))),
        ({ field, bad }) => {
          const verdict = parseNotice({ ...valid, [field]: bad });
          expect(verdict).toEqual({ ok: false, reason: field });
        },
      ),
    );
  });
});

describe("GatehouseRevocations", () => {
  it("refuses an invalid notice with invalid_notice and calls no holder", async () => {
    const u = freshUser();
    const s = await newSession(u);
    const ra = freshRoom();
    const socket = await open("ROOM_A", ra, s);
    for (const bad of [
      { ...notice(u, [s.sessionId]), kind: "everything" },
      { ...notice(u, [s.sessionId]), sessionIds: [] },
      { ...notice(u, [s.sessionId]), userId: 7 },
    ]) {
      await expect(env.APP_RECEIVER.sessionsEnded(bad as SessionsEndedNotice)).rejects.toMatchObject({
        code: "invalid_notice",
        message: expect.stringMatching(/^invalid sessions-ended notice \((kind|sessionIds|userId)\)$/),
      });
    }
    expect(await socket.who()).toMatchObject({ session: s.sessionId });
    expect((await stats("ROOM_A", ra)).calls).toBe(0);
  });

  it("answers 404 over HTTP", async () => {
    expect((await env.APP_RECEIVER.fetch("https://app.example.com/")).status).toBe(404);
  });
});
