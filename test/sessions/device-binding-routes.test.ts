/**
 * Device binding through the auth routes (issue 30): an application with `AuthServiceProvider` (the
 * auth worker's own routes) over the real local KV and `UserSessions`, signing in with the fake
 * identity client, and the DBSC reference client (dbsc-client.ts, written from the spec and Chrome's
 * wire behaviour) as the browser. With `deviceBinding: "opportunistic"`: the sign-in offers
 * registration, a proof binds, the bound cookie keeps the session signed in, a copied session cookie
 * alone does not, and only the bound key refreshes. With it off (the deployed worker): nothing changes.
 */
import { env, exports } from "cloudflare:workers";
import type { IdentityUser, SessionManagerOptions } from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";
import { validatePolicy } from "../../workers/auth/session/policy";
import {
  app,
  BOUND_COOKIE,
  challengeOf,
  header,
  type Jar,
  refresh,
  register,
  resolves,
  SESSION_COOKIE,
  signIn,
  take,
} from "./dbsc-app";
import { DbscClient } from "./dbsc-client";
import { freshUser, identity, ORIGIN } from "./helpers";

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

  it("a full copy (session and bound cookie) works only until the bound cookie's lifetime ends; then it is refused and on the timeline", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar, callback, sessionId } = await signIn(ctx, userId);
    const device = await DbscClient.create("ES256");
    take(await register(ctx, jar, device, challengeOf(callback.headers.get("Secure-Session-Registration"))), jar);
    const copy: Jar = { ...jar };
    expect(await resolves(ctx, copy)).toBe(true);
    ctx.clock.now += 10 * 60 * 1000 - 1;
    expect(await resolves(ctx, copy)).toBe(true);
    ctx.clock.now += 1;
    expect(await resolves(ctx, copy)).toBe(false);
    // The thief cannot refresh without the key: 403, no cookie; the owner can.
    const asked = await refresh(ctx, sessionId, null, copy);
    const forged = await refresh(
      ctx,
      sessionId,
      await (await DbscClient.create("ES256")).refreshProof(challengeOf(asked.headers.get("Secure-Session-Challenge"))),
      copy,
    );
    expect(forged.status).toBe(403);
    expect(forged.headers.getSetCookie()).toEqual([]);
    const { events } = await ctx.sessions.timeline(userId);
    const refused = events.filter((e) => e.type === "session.refused" && e.sessionId === sessionId);
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

  it("eventual mode: a copied cookie of a revoked bound session stays refused where KV still serves its old record", async () => {
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
    // The stale record says `bound`, so the copy without the bound cookie is refused with no object
    // call; the owner's own browser rides out eventual mode's window like any session there.
    expect(record!.bound).toBe(true);
    expect(await resolves(ctx, stolen)).toBe(false);
    expect(await resolves(ctx, jar)).toBe(true);
  });

  it("eventual mode: the KV record's bound flag decides, never holds the key, and a refresh restores a lost one", async () => {
    const userId = freshUser();
    const ctx = app(userId, { deviceBinding: "opportunistic", revocation: "eventual" });
    const { jar, callback, sessionId } = await signIn(ctx, userId);
    const device = await DbscClient.create("ES256");
    take(await register(ctx, jar, device, challengeOf(callback.headers.get("Secure-Session-Registration"))), jar);
    const raw = await env.SESSIONS.get(ctx.sessions.store.key(sessionId));
    expect(raw).toContain('"bound":true');
    expect(raw).not.toMatch(/"(jwk|x|y|n|e|thumbprint)":/);
    const stolen: Jar = { [SESSION_COOKIE]: jar[SESSION_COOKIE]! };
    expect(await resolves(ctx, stolen)).toBe(false);

    // A racing write lost the flag: eventual mode reads KV alone, so the copy passes until the
    // owner's next refresh (at most a bound cookie's lifetime) puts the flag back.
    const { bound: _, ...unflagged } = (await ctx.sessions.store.get(sessionId))!;
    await ctx.sessions.store.put(unflagged);
    expect(await resolves(ctx, stolen)).toBe(true);
    const asked = await refresh(ctx, sessionId, null, jar);
    const proof = await device.refreshProof(challengeOf(asked.headers.get("Secure-Session-Challenge")));
    expect((await refresh(ctx, sessionId, proof, jar)).status).toBe(200);
    expect((await ctx.sessions.store.get(sessionId))!.bound).toBe(true);
    expect(await resolves(ctx, stolen)).toBe(false);
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

describe("device binding required for a role (a session policy's deviceBindingRoles)", () => {
  const requiring = (roles: string[], revocation: "strict" | "eventual" = "strict") =>
    ({
      deviceBinding: "opportunistic",
      revocation,
      organizationPolicies: { org_acme: { deviceBindingRoles: roles } },
    }) satisfies Partial<SessionManagerOptions>;
  const html = { Accept: "text/html" };

  it("an admin's sign-in waits on the binding page, counts only once bound, then goes on", async () => {
    const userId = freshUser();
    const ctx = app(userId, requiring(["admin"]));
    const { jar, callback, sessionId } = await signIn(ctx, userId);
    expect(callback.headers.get("Location")).toBe("/auth/device-binding?return_to=%2F");
    const offer = callback.headers.get("Secure-Session-Registration");
    expect(offer).not.toBeNull();
    // Not signed in anywhere (the consumer's RPC resolve included) until the browser binds.
    expect(await resolves(ctx, jar)).toBe(false);

    const page = await ctx.app.fetch(
      new Request(`${ORIGIN}/auth/device-binding?return_to=%2F`, { headers: { ...html, Cookie: header(jar) } }),
    );
    expect(page.status).toBe(200);
    expect(page.headers.get("Refresh")).toBe("2");
    expect(page.headers.get("Secure-Session-Registration")).toMatch(/challenge="[A-Za-z0-9_-]{43}"/);
    expect(await page.text()).toContain("The role “admin” in the organization acme requires a session bound");

    const device = await DbscClient.create("ES256");
    const bound = await register(ctx, jar, device, challengeOf(offer));
    expect(bound.status).toBe(200);
    take(bound, jar);
    expect(await resolves(ctx, jar)).toBe(true);
    expect((await ctx.sessions.resolveCookieHeader(header(jar)))!.sessionId).toBe(sessionId);
    const onward = await ctx.app.fetch(
      new Request(`${ORIGIN}/auth/device-binding?return_to=%2Fdashboard`, {
        headers: { ...html, Cookie: header(jar) },
      }),
    );
    expect(onward.status).toBe(303);
    expect(onward.headers.get("Location")).toBe("/dashboard");
    // Bound, it is held to its bound cookie like any bound session.
    expect(await resolves(ctx, { [SESSION_COOKIE]: jar[SESSION_COOKIE]! })).toBe(false);
  });

  it("a browser that cannot bind: after the wait a 403 page says why; JSON clients get device_binding_required", async () => {
    const userId = freshUser();
    const ctx = app(userId, requiring(["*"], "eventual"));
    const { jar } = await signIn(ctx, userId);
    ctx.clock.now += 21_000;
    const page = await ctx.app.fetch(
      new Request(`${ORIGIN}/auth/device-binding?return_to=%2F`, { headers: { ...html, Cookie: header(jar) } }),
    );
    expect(page.status).toBe(403);
    expect(page.headers.has("Refresh")).toBe(false);
    expect(page.headers.get("Content-Type")).toMatch(/^text\/html/);
    const text = await page.text();
    expect(text).toContain("Every member of the organization acme must use a session bound to its device.");
    expect(text).toContain("Chrome 145 or later on Windows");
    expect(text).toContain('href="/auth/device-binding?return_to=%2F"');
    expect(text).toContain('href="/auth/logout"');
    const api = await ctx.app.fetch(
      new Request(`${ORIGIN}/auth/device-binding`, { headers: { Accept: "application/json", Cookie: header(jar) } }),
    );
    expect(api.status).toBe(403);
    expect(((await api.json()) as { error: string }).error).toBe("device_binding_required");
    expect(await resolves(ctx, jar)).toBe(false);
    // Signed out: the page sends the browser to sign in, keeping where it was going.
    const none = await ctx.app.fetch(new Request(`${ORIGIN}/auth/device-binding?return_to=%2Fx`, { headers: html }));
    expect(none.status).toBe(303);
    expect(none.headers.get("Location")).toBe("/auth/login?return_to=%2Fx");
  });

  it("a member whose role the policy does not list signs in as before", async () => {
    const userId = freshUser();
    const member: IdentityUser = {
      ...identity(userId),
      memberships: [{ organizationId: "org_acme", organizationSlug: "acme", role: "member" }],
    };
    const ctx = app(userId, requiring(["admin"]), member);
    const { jar, callback } = await signIn(ctx, userId);
    expect(callback.headers.get("Location")).toBe("/");
    expect(await resolves(ctx, jar)).toBe(true);
  });

  it("a role named by an operator's policy counts at the next sign-in; the policy is checked", async () => {
    const userId = freshUser();
    const ctx = app(userId, { deviceBinding: "opportunistic", organizations: env.ORGANIZATIONS });
    await ctx.sessions.setOrganizationPolicy("org_acme", {
      maxSessions: null,
      onLimit: "evict-oldest",
      deviceBindingRoles: ["admin"],
    });
    const { callback } = await signIn(ctx, userId);
    expect(callback.headers.get("Location")).toBe("/auth/device-binding?return_to=%2F");
    await ctx.sessions.setOrganizationPolicy("org_acme", null);

    for (const roles of [[], ["*", "admin"], ["bad role"], [7], "admin"]) {
      expect(() => validatePolicy({ deviceBindingRoles: roles }, "policy")).toThrow(
        /policy\.deviceBindingRoles must be/,
      );
    }
    expect(validatePolicy({ deviceBindingRoles: ["admin", "admin", "owner"] }).deviceBindingRoles).toEqual([
      "admin",
      "owner",
    ]);
    expect(validatePolicy({})).toEqual({ maxSessions: null, onLimit: "evict-oldest" });
  });

  it("with device binding off, a policy that requires it fails closed, naming the option", async () => {
    expect(() => app(freshUser(), { organizationPolicies: { org_acme: { deviceBindingRoles: ["admin"] } } })).toThrow(
      'organizationPolicies.org_acme.deviceBindingRoles needs deviceBinding: "opportunistic"',
    );
    const ctx = app(freshUser(), { organizations: env.ORGANIZATIONS });
    await expect(
      ctx.sessions.setOrganizationPolicy("org_acme", {
        maxSessions: null,
        onLimit: "evict-oldest",
        deviceBindingRoles: ["*"],
      }),
    ).rejects.toMatchObject({ code: "invalid_policy", status: 400 });
  });
});
