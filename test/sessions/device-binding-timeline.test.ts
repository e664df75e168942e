/**
 * What device binding tells the user's timeline (issue 30), through the auth routes with the DBSC
 * reference client (dbsc-client.ts) as the browser: a bound session refused for lack of a fresh
 * proof is `device_refresh_skipped` when the request's `Secure-Session-Skipped` names it (the
 * browser's word), else `device_proof_missing`; a refresh proof that was sent and refused is
 * `session.device_refresh_failed` (its HTTP answer unchanged), and Chrome's proof-less first
 * request is nothing. Every report is throttled per session. Clocks are injected, never slept on.
 */
import { exports } from "cloudflare:workers";
import fc from "fast-check";
import type { SecurityEvent } from "gatehouse-workers/client";
import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { app, boundSession, type Ctx, challengeOf, header, type Jar, refresh, SESSION_COOKIE } from "./dbsc-app";
import { b64url, DbscClient } from "./dbsc-client";
import { freshUser, ORIGIN } from "./helpers";

const SKIPPED = "Secure-Session-Skipped";
const TEN_MINUTES = 10 * 60 * 1000;

afterEach(() => setObjectClock(null));

/** An ordinary request of the browser, with only the cookies given and any other headers. */
function resolveWith(ctx: Ctx, jar: Jar, headers: Record<string, string> = {}) {
  return ctx.sessions.resolveSession(
    new Request(`${ORIGIN}/account`, { headers: { Cookie: header(jar), "CF-Connecting-IP": "192.0.2.9", ...headers } }),
  );
}

async function deviceEvents(ctx: Ctx, userId: string): Promise<SecurityEvent[]> {
  const { events } = await ctx.sessions.timeline(userId, { limit: 100 });
  return events.filter((e) => e.type === "session.refused" || e.type === "session.device_refresh_failed");
}

/** A bound session whose bound cookie has lapsed (11 minutes later on the worker's clock). */
async function lapsed(userId: string) {
  const ctx = app(userId);
  const device = await DbscClient.create("ES256");
  const signed = await boundSession(ctx, userId, device);
  ctx.clock.now += 11 * 60 * 1000;
  return { ctx, device, ...signed };
}

describe("Secure-Session-Skipped on a bound session without its fresh proof", () => {
  it("is still refused, and recorded as the browser's skipped refresh with its reason, not as a copied cookie", async () => {
    const userId = freshUser();
    const { ctx, jar, sessionId } = await lapsed(userId);
    const skipped = `unreachable;session_identifier="${sessionId}"`;
    expect(await resolveWith(ctx, jar, { [SKIPPED]: skipped })).toBeNull();

    const events = await deviceEvents(ctx, userId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "session.refused",
      sessionId,
      ip: "192.0.2.9",
      detail: { reason: "device_refresh_skipped", skipped: "unreachable" },
    });
  });

  it("each reason of the spec is kept; an unknown token naming the session is 'unknown', never the raw token", async () => {
    for (const [sent, kept] of [
      ["server_error", "server_error"],
      ["quota_exceeded", "quota_exceeded"],
      ["<b>new_reason</b>", null],
      ["new_reason", "unknown"],
    ] as const) {
      const userId = freshUser();
      const { ctx, jar, sessionId } = await lapsed(userId);
      // Another session's member first: only the member naming this session counts.
      const value = `unreachable;session_identifier="someone-else", ${sent};session_identifier="${sessionId}"`;
      expect(await resolveWith(ctx, jar, { [SKIPPED]: value })).toBeNull();
      const [event] = await deviceEvents(ctx, userId);
      // `<b>…` is not a token: the header does not parse, and the miss is a missing proof.
      expect(event!.detail).toEqual(
        kept === null ? { reason: "device_proof_missing" } : { reason: "device_refresh_skipped", skipped: kept },
      );
    }
  });

  it("a member naming another session, or a malformed header, is ignored: the miss is a missing proof", async () => {
    for (const value of [
      'unreachable;session_identifier="another"',
      "unreachable",
      "unreachable,",
      "(",
      "unreachable;session_identifier=?1",
      '"unterminated',
    ]) {
      const userId = freshUser();
      const { ctx, jar } = await lapsed(userId);
      expect(await resolveWith(ctx, jar, { [SKIPPED]: value })).toBeNull();
      expect((await deviceEvents(ctx, userId)).map((e) => e.detail)).toEqual([{ reason: "device_proof_missing" }]);
    }
  });

  it("no header value makes resolve throw (property)", async () => {
    const userId = freshUser();
    const { ctx, jar, sessionId } = await lapsed(userId);
    const headerValue = fc
      .oneof(
        fc.string({ maxLength: 300 }),
        fc.constantFrom(`unreachable;session_identifier="${sessionId}"`, `x;session_identifier=${sessionId}`),
      )
      .map((v) => v.replace(/[\r\n\0]/g, ""));
    await fc.assert(
      fc.asyncProperty(headerValue, async (value) => {
        expect(await resolveWith(ctx, jar, { [SKIPPED]: value })).toBeNull();
      }),
      { numRuns: 60 },
    );
  });

  it("is throttled per session, and never hides a copied cookie's use (its own cause)", async () => {
    const userId = freshUser();
    const { ctx, jar, sessionId } = await lapsed(userId);
    setObjectClock(() => ctx.clock.now);
    const skipped = { [SKIPPED]: `unreachable;session_identifier="${sessionId}"` };
    for (let i = 0; i < 3; i++) expect(await resolveWith(ctx, jar, skipped)).toBeNull();
    expect((await deviceEvents(ctx, userId)).map((e) => e.detail.reason)).toEqual(["device_refresh_skipped"]);

    // The thief's copy, without the header, in the same minute: recorded all the same.
    const stolen: Jar = { [SESSION_COOKIE]: jar[SESSION_COOKIE]! };
    expect(await resolveWith(ctx, stolen)).toBeNull();
    expect((await deviceEvents(ctx, userId)).map((e) => e.detail.reason)).toEqual([
      "device_proof_missing",
      "device_refresh_skipped",
    ]);

    // After the window, the browser's next skipped refresh is recorded again.
    ctx.clock.now += TEN_MINUTES;
    expect(await resolveWith(ctx, jar, skipped)).toBeNull();
    expect((await deviceEvents(ctx, userId)).filter((e) => e.detail.reason === "device_refresh_skipped")).toHaveLength(
      2,
    );
  });

  it("a fresh bound cookie still signs in whatever the header says, and records nothing", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar, sessionId } = await boundSession(ctx, userId, await DbscClient.create("ES256"));
    const session = await resolveWith(ctx, jar, { [SKIPPED]: `unreachable;session_identifier="${sessionId}"` });
    expect(session?.sessionId).toBe(sessionId);
    expect(await deviceEvents(ctx, userId)).toEqual([]);
  });

  it("reaches the lifecycle from a raw Cookie header too (the RPC's path: resolveCookieHeader's options)", async () => {
    const userId = freshUser();
    const { ctx, jar, sessionId } = await lapsed(userId);
    const deviceSkipped = `quota_exceeded;session_identifier="${sessionId}"`;
    expect(await ctx.sessions.resolveCookieHeader(header(jar), {}, { deviceSkipped })).toBeNull();
    expect((await deviceEvents(ctx, userId)).map((e) => e.detail)).toEqual([
      { reason: "device_refresh_skipped", skipped: "quota_exceeded" },
    ]);
  });
});

describe("the AuthService RPC's resolve options", () => {
  it("accepts deviceSkipped as a string or null, and refuses anything else with a TypeError", async () => {
    const service = exports.AuthService;
    expect(await service.resolveUser(null, { deviceSkipped: 'unreachable;session_identifier="x"' })).toBeNull();
    expect(await service.resolveSession("__Host-gh_session=forged.value", { deviceSkipped: null })).toBeNull();
    await expect(service.resolveUser(null, { deviceSkipped: 42 as never })).rejects.toThrow(/deviceSkipped/);
    await expect(service.resolveSession(null, "unreachable" as never)).rejects.toThrow(/options must be an object/);
  });
});

describe("refused refresh proofs on the timeline", () => {
  /** Asks for a refresh challenge as the owner's browser does (no proof, its cookies). */
  async function askChallenge(ctx: Ctx, sessionId: string, jar: Jar): Promise<string> {
    const asked = await refresh(ctx, sessionId, null, jar);
    expect(asked.status).toBe(403);
    return challengeOf(asked.headers.get("Secure-Session-Challenge"));
  }

  const failures = async (ctx: Ctx, userId: string) =>
    (await deviceEvents(ctx, userId)).filter((e) => e.type === "session.device_refresh_failed");

  it("another key's proof: the same 403 and fresh challenge as before, and recorded as bad_signature", async () => {
    const userId = freshUser();
    const { ctx, jar, sessionId } = await lapsed(userId);
    const thief = await DbscClient.create("ES256");
    const forged = await refresh(
      ctx,
      sessionId,
      await thief.refreshProof(await askChallenge(ctx, sessionId, jar)),
      jar,
    );
    expect(forged.status).toBe(403);
    expect(forged.headers.get("Secure-Session-Challenge")).toMatch(new RegExp(`;id="${sessionId}"$`));
    expect(forged.headers.getSetCookie()).toEqual([]);
    const [event] = await failures(ctx, userId);
    expect(event).toMatchObject({ sessionId, detail: { reason: "bad_signature" } });
  });

  it("a replayed proof is unknown_challenge; an unreadable one malformed", async () => {
    const userId = freshUser();
    const { ctx, jar, sessionId, device } = await lapsed(userId);
    const proof = await device.refreshProof(await askChallenge(ctx, sessionId, jar));
    expect((await refresh(ctx, sessionId, proof, jar)).status).toBe(200);
    expect(await failures(ctx, userId)).toEqual([]);
    const replayed = await refresh(ctx, sessionId, proof, jar);
    expect(replayed.status).toBe(403);
    expect((await failures(ctx, userId)).map((e) => e.detail.reason)).toEqual(["unknown_challenge"]);

    for (const garbage of ["not-a-jwt", `${b64url("{}")}.${b64url("{}")}.${b64url("sig")}`]) {
      const other = freshUser();
      const next = await lapsed(other);
      const res = await refresh(next.ctx, next.sessionId, garbage, next.jar);
      expect(res.status).toBe(403);
      expect(res.headers.has("Secure-Session-Challenge")).toBe(true);
      expect((await failures(next.ctx, other)).map((e) => e.detail.reason)).toEqual(["malformed"]);
    }
  });

  it("Chrome's flow (a proof-less request, then a good proof) records nothing", async () => {
    const userId = freshUser();
    const { ctx, jar, sessionId, device } = await lapsed(userId);
    for (let i = 0; i < 2; i++) {
      const proof = await device.refreshProof(await askChallenge(ctx, sessionId, jar));
      expect((await refresh(ctx, sessionId, proof, jar)).status).toBe(200);
    }
    expect(await failures(ctx, userId)).toEqual([]);
  });

  it("is throttled per session; a stranger's proof without the session's cookie writes nothing", async () => {
    const userId = freshUser();
    const { ctx, jar, sessionId } = await lapsed(userId);
    setObjectClock(() => ctx.clock.now);
    const thief = await DbscClient.create("ES256");
    const stranger = await refresh(ctx, sessionId, await thief.refreshProof("made-up-challenge"));
    expect(stranger.status).toBe(403);
    expect(stranger.headers.has("Secure-Session-Challenge")).toBe(false);
    expect(await failures(ctx, userId)).toEqual([]);

    for (let i = 0; i < 3; i++) {
      const res = await refresh(ctx, sessionId, await thief.refreshProof(await askChallenge(ctx, sessionId, jar)), jar);
      expect(res.status).toBe(403);
    }
    expect(await failures(ctx, userId)).toHaveLength(1);
    ctx.clock.now += TEN_MINUTES;
    await refresh(ctx, sessionId, await thief.refreshProof(await askChallenge(ctx, sessionId, jar)), jar);
    expect(await failures(ctx, userId)).toHaveLength(2);
  });
});
