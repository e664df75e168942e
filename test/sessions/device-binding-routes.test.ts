/**
 * Device binding through the auth routes (issue 30): an application with `AuthServiceProvider` (the
 * auth worker's own routes) over the real local KV and `UserSessions`, signing in with the fake
 * identity client, and the DBSC reference client (dbsc-client.ts, written from the spec and Chrome's
 * wire behaviour) as the browser. With `deviceBinding: "opportunistic"`: the sign-in offers
 * registration, a proof binds, the bound cookie keeps the session signed in, a copied session cookie
 * alone does not, and only the bound key refreshes. With it off (the deployed worker): nothing changes.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  app,
  BOUND_COOKIE,
  challengeOf,
  type Jar,
  refresh,
  register,
  resolves,
  SESSION_COOKIE,
  signIn,
  take,
} from "./dbsc-app";
import { DbscClient } from "./dbsc-client";
import { freshUser, ORIGIN } from "./helpers";

describe("device binding on (opportunistic), through the auth routes", () => {
  it("sign-in offers registration; a valid ES256 proof binds the session and sets the bound cookie", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar, callback, sessionId } = await signIn(ctx, userId);
    const offer = callback.headers.get("Secure-Session-Registration");
    expect(offer).toMatch(/^\(ES256 RS256\);path="\/auth\/dbsc\/register";challenge="[A-Za-z0-9_-]{43}"$/);

    const device = await DbscClient.create("ES256");
    const res = await register(ctx, jar, device, challengeOf(offer));
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const config = (await res.json()) as {
      session_identifier: string;
      credentials: { name: string; attributes: string }[];
    };
    expect(config.session_identifier).toBe(sessionId);
    expect(config.credentials).toEqual([
      { type: "cookie", name: BOUND_COOKIE, attributes: "Path=/; Secure; HttpOnly; SameSite=Lax" },
    ]);
    const bound = res.headers.getSetCookie().find((c) => c.startsWith(`${BOUND_COOKIE}=`));
    expect(bound).toMatch(/; Max-Age=600$/);
    take(res, jar);

    expect(await resolves(ctx, jar)).toBe(true);
    const listed = await ctx.sessions.listSessions(userId);
    expect(listed.find((s) => s.id === sessionId)?.bound).toBe(true);
    // The challenge was spent: the same proof does not bind twice.
    expect((await register(ctx, jar, device, challengeOf(offer))).status).toBe(400);
    // The timeline (and so the outbound deliveries) has the binding, once.
    const { events } = await ctx.sessions.timeline(userId);
    const bindings = events.filter((e) => e.type === "session.device_bound");
    expect(bindings.map((e) => [e.sessionId, e.detail.alg])).toEqual([[sessionId, "ES256"]]);
  });

  it("a copied session cookie alone is refused once the bound cookie lapses; only the bound key refreshes", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar, callback, sessionId } = await signIn(ctx, userId);
    const device = await DbscClient.create("ES256");
    take(await register(ctx, jar, device, challengeOf(callback.headers.get("Secure-Session-Registration"))), jar);

    // The thief copied the session cookie only; the owner's bound cookie expires on the clock.
    const stolen: Jar = { [SESSION_COOKIE]: jar[SESSION_COOKIE]! };
    expect(await resolves(ctx, stolen)).toBe(false);
    ctx.clock.now += 11 * 60 * 1000;
    expect(await resolves(ctx, jar)).toBe(false);

    // Without a proof: 403 and a challenge for this session; with another key's proof: refused again.
    const asked = await refresh(ctx, sessionId, null, stolen);
    expect(asked.status).toBe(403);
    const challenge = asked.headers.get("Secure-Session-Challenge");
    expect(challenge).toMatch(new RegExp(`^"[A-Za-z0-9_-]{43}";id="${sessionId}"$`));
    const thief = await DbscClient.create("ES256");
    const forged = await refresh(ctx, sessionId, await thief.refreshProof(challengeOf(challenge)), stolen);
    expect(forged.status).toBe(403);
    expect(forged.headers.getSetCookie()).toEqual([]);
    expect(await resolves(ctx, stolen)).toBe(false);

    // The owner's browser: asked, signs, gets a new bound cookie, and is signed in again.
    const again = await refresh(ctx, sessionId, null, jar);
    const proof = await device.refreshProof(challengeOf(again.headers.get("Secure-Session-Challenge")));
    const renewed = await refresh(ctx, sessionId, proof, jar);
    expect(renewed.status).toBe(200);
    expect(((await renewed.json()) as { session_identifier: string }).session_identifier).toBe(sessionId);
    take(renewed, jar);
    expect(await resolves(ctx, jar)).toBe(true);

    // The same proof again: its challenge is spent.
    const replayed = await refresh(ctx, sessionId, proof, jar);
    expect(replayed.status).toBe(403);
    expect(replayed.headers.has("Secure-Session-Challenge")).toBe(true);

    // The refused uses are on the owner's timeline.
    const { events } = await ctx.sessions.timeline(userId);
    const refused = events.filter((e) => e.type === "session.refused");
    expect(refused.map((e) => e.detail.reason)).toContain("device_proof_missing");
  });

  it("a session that never registered keeps working as before", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar, sessionId } = await signIn(ctx, userId);
    expect(await resolves(ctx, jar)).toBe(true);
    ctx.clock.now += 11 * 60 * 1000;
    expect(await resolves(ctx, jar)).toBe(true);
    expect((await ctx.sessions.listSessions(userId)).find((s) => s.id === sessionId)?.bound).toBe(false);
    // Its refresh has nothing to refresh: the browser is told to end the DBSC session, not the sign-in.
    const res = await refresh(ctx, sessionId, null, jar);
    expect(await res.json()).toEqual({ session_identifier: sessionId, continue: false });
  });

  it("a revoked session's refresh ends the DBSC session", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar, callback, sessionId } = await signIn(ctx, userId);
    const device = await DbscClient.create("ES256");
    take(await register(ctx, jar, device, challengeOf(callback.headers.get("Secure-Session-Registration"))), jar);
    await ctx.sessions.revokeSession(sessionId);
    const res = await refresh(ctx, sessionId, null, jar);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ session_identifier: sessionId, continue: false });
  });

  it("a stranger who knows only the public session id cannot evict the owner's challenge", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar, callback, sessionId } = await signIn(ctx, userId);
    const device = await DbscClient.create("ES256");
    take(await register(ctx, jar, device, challengeOf(callback.headers.get("Secure-Session-Registration"))), jar);
    ctx.clock.now += 11 * 60 * 1000;
    const asked = await refresh(ctx, sessionId, null, jar);
    const challenge = challengeOf(asked.headers.get("Secure-Session-Challenge"));
    // No cookie, only the public id: refused with no challenge, and nothing minted at the object.
    for (let i = 0; i < 5; i++) {
      const stranger = await refresh(ctx, sessionId, null);
      expect(stranger.status).toBe(403);
      expect(stranger.headers.has("Secure-Session-Challenge")).toBe(false);
    }
    const renewed = await refresh(ctx, sessionId, await device.refreshProof(challenge), jar);
    expect(renewed.status).toBe(200);
  });

  it("eventual mode: a revoked bound session stays refused where KV still serves its old record", async () => {
    const userId = freshUser();
    const ctx = app(userId, { deviceBinding: "opportunistic", revocation: "eventual" });
    const { jar, callback, sessionId } = await signIn(ctx, userId);
    const device = await DbscClient.create("ES256");
    take(await register(ctx, jar, device, challengeOf(callback.headers.get("Secure-Session-Registration"))), jar);
    const stolen: Jar = { [SESSION_COOKIE]: jar[SESSION_COOKIE]! };
    const record = await ctx.sessions.store.get(sessionId);
    await ctx.sessions.revokeSession(sessionId);
    // Another location's KV still serves the record (eventual mode's documented window).
    await ctx.sessions.store.put(record!);
    expect(await resolves(ctx, stolen)).toBe(false);
    expect(await resolves(ctx, jar)).toBe(false);
  });

  it("refuses a deviceBinding value it does not know, naming the option", () => {
    expect(() => app(freshUser(), { deviceBinding: "required" as never })).toThrow(/deviceBinding must be/);
  });
});

describe("device binding off (the default)", () => {
  it("sign-in sends no registration header and the session resolves as before", async () => {
    const userId = freshUser();
    const ctx = app(userId, {});
    const { jar, callback } = await signIn(ctx, userId);
    expect(callback.headers.has("Secure-Session-Registration")).toBe(false);
    expect(await resolves(ctx, jar)).toBe(true);
    const res = await ctx.app.fetch(new Request(`${ORIGIN}/auth/dbsc/register`, { method: "POST" }));
    expect(res.status).toBe(404);
  });

  it("the deployed auth worker has no DBSC routes", async () => {
    for (const path of ["/auth/dbsc/register", "/auth/dbsc/refresh"]) {
      const res = await exports.default.fetch(`${ORIGIN}${path}`, { method: "POST" });
      expect(res.status).toBe(404);
    }
  });
});
