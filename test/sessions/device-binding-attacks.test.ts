/**
 * Attacks on device binding (issue 30), each written so that it fails if the attack works: through
 * the auth routes over the real local KV and `UserSessions`, the DBSC reference client (dbsc-client.ts)
 * as the owner's browser and as the attacker's, clocks injected (`ctx.clock`, `setObjectClock`).
 * What the other device-binding tests already hold (a copied session cookie alone in strict and
 * eventual mode, a stranger's cookie-less refresh, replay, alg none and HS256, the well-known's Host)
 * is not repeated here. Three attacks worked before their fix: a copy of a pending session's cookie
 * enrolling its own key long after sign-in, the dbsc limiter's 429 (Chrome deletes the session), and
 * a copied cookie's holder wording its use as the browser's harmless skipped refresh.
 */
import { env } from "cloudflare:workers";
import type { SessionManagerOptions } from "gatehouse-workers/auth";
import { setObjectClock } from "gatehouse-workers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { renderEvent } from "../../workers/auth/account/activity-view";
import { REGISTRATION_WINDOW_MS } from "../../workers/auth/session/device-binding/door";
import { verifyProof } from "../../workers/auth/session/device-binding/proof";
import {
  app,
  BOUND_COOKIE,
  boundSession,
  type Ctx,
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
import { b64url, DbscClient, registrationRequestHeaders, signJws } from "./dbsc-client";
import { freshUser, ORIGIN } from "./helpers";

afterEach(() => setObjectClock(null));

const REGISTRATION = "Secure-Session-Registration";
const requiring = (revocation: "strict" | "eventual" = "strict") =>
  ({
    deviceBinding: "opportunistic",
    revocation,
    organizationPolicies: { org_acme: { deviceBindingRoles: ["admin"] } },
  }) satisfies Partial<SessionManagerOptions>;

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** What a thief computes from a copied session cookie alone: its public session id (SHA-256 of the token). */
const sessionIdFromCookie = (jar: Jar) => sha256Hex(jar[SESSION_COOKIE]!.split(".")[0]!);

function page(ctx: Ctx, jar: Jar, query = "?return_to=%2F") {
  return ctx.app.fetch(
    new Request(`${ORIGIN}/auth/device-binding${query}`, { headers: { Accept: "text/html", Cookie: header(jar) } }),
  );
}

describe("bound cookies that are not this session's", () => {
  for (const revocation of ["strict", "eventual"] as const) {
    it(`another session's bound cookie, of the same person or another, does not stand in (${revocation})`, async () => {
      const userId = freshUser();
      const ctx = app(userId, { deviceBinding: "opportunistic", revocation });
      const victim = await boundSession(ctx, userId, await DbscClient.create("ES256"));
      // The attacker's own bound session of the same person (another tab, another device) …
      const sibling = await boundSession(ctx, userId, await DbscClient.create("ES256"));
      // … and of another person, in another application with the same secret.
      const otherId = freshUser();
      const other = app(otherId, { deviceBinding: "opportunistic", revocation });
      const stranger = await boundSession(other, otherId, await DbscClient.create("ES256"));
      for (const donor of [sibling.jar, stranger.jar]) {
        const mixed: Jar = { [SESSION_COOKIE]: victim.jar[SESSION_COOKIE]!, [BOUND_COOKIE]: donor[BOUND_COOKIE]! };
        expect(await resolves(ctx, mixed)).toBe(false);
      }
      expect(await resolves(ctx, victim.jar)).toBe(true);
    });
  }

  it("no other value Gatehouse signs with the same secret passes as a bound cookie", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar, sessionId } = await boundSession(ctx, userId, await DbscClient.create("ES256"));
    // A live ticket has the very shape `<43 chars>.<expiry>.<HMAC>`; the session cookie is `<token>.<HMAC>`.
    const ticket = (await ctx.sessions.liveTicket(header(jar)))!.ticket;
    const [token, sessionMac] = jar[SESSION_COOKIE]!.split(".") as [string, string];
    const [, expiry, boundMac] = jar[BOUND_COOKIE]!.split(".") as [string, string, string];
    const forged = [
      ticket,
      jar[SESSION_COOKIE]!,
      `${token}.${expiry}.${sessionMac}`,
      `${sessionId}.${expiry}.${sessionMac}`,
      `${sessionId}.${Number(expiry) + 3_600_000}.${boundMac}`,
      `${sessionId}.0${expiry}.${boundMac}`,
      `${sessionId.toUpperCase()}.${expiry}.${boundMac}`,
    ];
    for (const value of forged) {
      expect(await resolves(ctx, { [SESSION_COOKIE]: jar[SESSION_COOKIE]!, [BOUND_COOKIE]: value })).toBe(false);
    }
  });

  it("odd, huge or expired bound cookies and session ids are refused, never a 500", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar, sessionId } = await boundSession(ctx, userId, await DbscClient.create("ES256"));
    const [, expiry, mac] = jar[BOUND_COOKIE]!.split(".") as [string, string, string];
    const odd = [
      "",
      ".",
      "..",
      "a.b.c.d",
      `${sessionId}.${expiry}.${mac}.`,
      `${sessionId}.1e20.${mac}`,
      `${sessionId}.99999999999999999999.${mac}`,
      `${sessionId}.-1.${mac}`,
      `${"A".repeat(200)}.${expiry}.${mac}`,
      "%E0%A4%A",
      '"quoted"',
      "~!@$^&*()[]{}|",
      `${sessionId}.${expiry}.${"A".repeat(100_000)}`,
    ];
    for (const value of odd) {
      const cookies = `${SESSION_COOKIE}=${jar[SESSION_COOKIE]}; ${BOUND_COOKIE}=${value}`;
      expect(await ctx.sessions.resolveCookieHeader(cookies)).toBeNull();
      const res = await ctx.app.fetch(
        new Request(`${ORIGIN}/auth/device-binding`, { headers: { Cookie: cookies, Accept: "application/json" } }),
      );
      expect(res.status).toBe(303);
      const refreshed = await ctx.app.fetch(
        new Request(`${ORIGIN}/auth/dbsc/refresh`, {
          method: "POST",
          headers: { "Sec-Secure-Session-Id": value || "x", Cookie: cookies },
        }),
      );
      expect(refreshed.status).toBeLessThan(500);
    }
    // The owner's own bound cookie, once expired on the clock, is refused too.
    ctx.clock.now += 10 * 60 * 1000;
    expect(await resolves(ctx, jar)).toBe(false);
  });
});

describe("registration: binding a key to someone else's session", () => {
  it("a copy of a pending session's cookie cannot enrol its own key once the sign-in's window has passed", async () => {
    const userId = freshUser();
    const ctx = app(userId, requiring());
    setObjectClock(ctx.clock.fn);
    // The admin signed in from a browser that cannot bind: the session stays pending for its whole life.
    const owner = await signIn(ctx, userId);
    expect(await resolves(ctx, owner.jar)).toBe(false);
    // Within the window the page offers a registration, as the owner's browser needs.
    expect((await page(ctx, owner.jar)).headers.has(REGISTRATION)).toBe(true);

    // Later, a thief copies the session cookie only and loads the page to get a challenge.
    ctx.clock.now += REGISTRATION_WINDOW_MS;
    const stolen: Jar = { [SESSION_COOKIE]: owner.jar[SESSION_COOKIE]! };
    const answer = await page(ctx, stolen);
    expect(answer.status).toBe(403);
    const thief = await DbscClient.create("ES256");
    const offered = answer.headers.get(REGISTRATION);
    // (Before the fix the page offered one, the thief's key bound, and the copy was fully signed in.)
    if (offered) take(await register(ctx, stolen, thief, challengeOf(offered)), stolen);
    expect(await resolves(ctx, stolen)).toBe(false);
    expect(offered).toBeNull();
    expect(await answer.text()).not.toContain("Try again");
    // Nor is any challenge the owner was given still good: the sign-in's has expired.
    const bind = await register(ctx, stolen, thief, challengeOf(owner.callback.headers.get(REGISTRATION)));
    expect(bind.status).toBe(400);
    expect(await resolves(ctx, stolen)).toBe(false);
    expect((await ctx.sessions.listSessions(userId)).find((s) => s.id === owner.sessionId)?.bound).toBe(false);
  });

  it("another session's challenge (same person or another) and a refresh challenge bind nothing", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const victim = await signIn(ctx, userId);
    const thief = await DbscClient.create("ES256");
    // The attacker's own sessions: one of the same person, one of another person (same deployment).
    const sibling = await signIn(ctx, userId);
    const otherId = freshUser();
    const other = app(otherId);
    const mine = await signIn(other, otherId);
    // A refresh challenge of a bound session of the same person.
    const owned = await boundSession(ctx, userId, await DbscClient.create("ES256"));
    ctx.clock.now += 11 * 60 * 1000;
    const refreshChallenge = challengeOf(
      (await refresh(ctx, owned.sessionId, null, owned.jar)).headers.get("Secure-Session-Challenge"),
    );
    for (const challenge of [
      challengeOf(sibling.callback.headers.get(REGISTRATION)),
      challengeOf(mine.callback.headers.get(REGISTRATION)),
      refreshChallenge,
    ]) {
      // Posted with the victim's cookies (as a page of another site could make the browser do).
      expect((await register(ctx, victim.jar, thief, challenge)).status).toBe(400);
    }
    expect((await ctx.sessions.listSessions(userId)).find((s) => s.id === victim.sessionId)?.bound).toBe(false);
    // And a registration challenge answers no refresh, even signed by the bound key.
    const ownerKey = await DbscClient.create("ES256");
    const fresh = await signIn(ctx, userId);
    take(await register(ctx, fresh.jar, ownerKey, challengeOf(fresh.callback.headers.get(REGISTRATION))), fresh.jar);
    const spare = challengeOf(victim.callback.headers.get(REGISTRATION));
    const crossed = await refresh(ctx, fresh.sessionId, await ownerKey.refreshProof(spare), fresh.jar);
    expect(crossed.status).toBe(403);
    expect(crossed.headers.getSetCookie()).toEqual([]);
  });

  it("a revoked session registers nothing, even with its sign-in's challenge", async () => {
    for (const revocation of ["strict", "eventual"] as const) {
      const userId = freshUser();
      const ctx = app(userId, { deviceBinding: "opportunistic", revocation });
      const { jar, callback, sessionId } = await signIn(ctx, userId);
      const record = await ctx.sessions.store.get(sessionId);
      await ctx.sessions.revokeSession(sessionId);
      // Eventual mode: another location's KV may still serve the record; the object still says no.
      if (revocation === "eventual") await ctx.sessions.store.put(record!);
      const res = await register(
        ctx,
        jar,
        await DbscClient.create("ES256"),
        challengeOf(callback.headers.get(REGISTRATION)),
      );
      // 401 where the record is gone; 400 where a stale record resolves but the challenge went with the revocation.
      expect([400, 401]).toContain(res.status);
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      expect(res.headers.getSetCookie()).toEqual([]);
      expect((await ctx.sessions.listSessions(userId)).some((s) => s.id === sessionId)).toBe(false);
    }
  });

  it("forged keys (RSA e=1 or 3, an EC key under RS256, a lower-case alg) are refused and spend no challenge", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar, callback, sessionId } = await signIn(ctx, userId);
    const challenge = challengeOf(callback.headers.get(REGISTRATION));
    const rsa = await DbscClient.create("RS256");
    const ec = await DbscClient.create("ES256");
    // With e=1 a "signature" equal to the PKCS#1 v1.5 encoding of the digest verifies: build exactly that.
    const headerFor = (jwk: Record<string, string>, alg = "RS256") => ({ alg, typ: "dbsc+jwt", jwk });
    const forgeE1 = async () => {
      const h = headerFor({ kty: "RSA", n: rsa.jwk.n!, e: "AQ" });
      const input = `${b64url(JSON.stringify(h))}.${b64url(JSON.stringify({ jti: challenge }))}`;
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(input)));
      const prefix = [
        0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04,
        0x20,
      ];
      const em = new Uint8Array(256).fill(0xff);
      em[0] = 0;
      em[1] = 1;
      em.set([0, ...prefix, ...digest], 256 - 1 - prefix.length - 32);
      return `${input}.${b64url(em)}`;
    };
    const proofs = [
      await forgeE1(),
      await rsa.sign(headerFor({ kty: "RSA", n: rsa.jwk.n!, e: "Aw" }), { jti: challenge }),
      await ec.sign(headerFor(ec.jwk, "RS256"), { jti: challenge }),
      await ec.sign({ alg: "es256", typ: "dbsc+jwt", jwk: ec.jwk }, { jti: challenge }),
    ];
    for (const proof of proofs) {
      expect((await verifyProof(proof, { acceptChallenge: () => true })).ok).toBe(false);
      const headers = registrationRequestHeaders(proof, "chrome");
      headers.set("Cookie", header(jar));
      const res = await ctx.app.fetch(new Request(`${ORIGIN}/auth/dbsc/register`, { method: "POST", headers }));
      expect(res.status).toBe(400);
    }
    // The owner's challenge was never offered to the object: the owner's own proof still binds.
    expect((await register(ctx, jar, ec, challenge)).status).toBe(200);
    expect((await ctx.sessions.listSessions(userId)).find((s) => s.id === sessionId)?.bound).toBe(true);
    // A JWS signed with the public key as an HMAC secret (HS256 confusion) under the bound key is refused at refresh.
    const secret = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(JSON.stringify(ec.jwk)),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const hs = await signJws({ alg: "HS256", typ: "dbsc+jwt" }, { jti: challenge }, secret, { name: "HMAC" });
    expect((await refresh(ctx, sessionId, hs, jar)).status).toBe(403);
  });
});

describe("refresh", () => {
  it("the dbsc limiter answers 503 with Retry-After, never a 429 (Chrome deletes the session on any 4xx)", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const device = await DbscClient.create("ES256");
    const { jar, sessionId } = await boundSession(ctx, userId, device);
    ctx.clock.now += 11 * 60 * 1000;
    // Someone behind the owner's address (a shared NAT) spends the address's budget.
    const address = "203.0.113.77";
    for (let i = 0; i < 120; i++) {
      const res = await ctx.app.fetch(
        new Request(`${ORIGIN}/auth/dbsc/refresh`, {
          method: "POST",
          headers: { "CF-Connecting-IP": address, "Sec-Secure-Session-Id": "nobody" },
        }),
      );
      expect(res.status).not.toBe(429);
    }
    const headers = new Headers({
      "CF-Connecting-IP": address,
      "Sec-Secure-Session-Id": sessionId,
      Cookie: header(jar),
    });
    const limited = await ctx.app.fetch(new Request(`${ORIGIN}/auth/dbsc/refresh`, { method: "POST", headers }));
    expect(limited.status).toBe(503);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(limited.headers.get("Cache-Control")).toBe("no-store");
    expect(((await limited.json()) as { error: string }).error).toBe("rate_limited");
    // The browser keeps its session and tries again later, from an address with budget: it still refreshes.
    const asked = await refresh(ctx, sessionId, null, jar);
    const proof = await device.refreshProof(challengeOf(asked.headers.get("Secure-Session-Challenge")));
    expect((await refresh(ctx, sessionId, proof, jar)).status).toBe(200);
  });

  it("a copied cookie's holder sending Secure-Session-Skipped is refused, and its use stays highlighted", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar } = await boundSession(ctx, userId, await DbscClient.create("ES256"));
    const stolen: Jar = { [SESSION_COOKIE]: jar[SESSION_COOKIE]! };
    // The session id is the SHA-256 of the cookie's token: the thief names the session itself.
    const id = await sessionIdFromCookie(stolen);
    const request = new Request(`${ORIGIN}/api/me`, {
      headers: {
        Cookie: header(stolen),
        "CF-Connecting-IP": "203.0.113.9",
        "Secure-Session-Skipped": `unreachable;session_identifier="${id}"`,
      },
    });
    expect(await ctx.sessions.resolveSession(request)).toBeNull();
    const { events } = await ctx.sessions.timeline(userId);
    const refused = events.filter((e) => e.type === "session.refused");
    expect(refused).toHaveLength(1);
    expect(refused[0]!.detail).toMatchObject({ reason: "device_refresh_skipped", skipped: "unreachable" });
    // The header can only change the words, never lower the alarm: the entry is highlighted.
    expect(renderEvent(refused[0]!, "csrf")).toContain('<strong class="alert">');
  });
});

describe("a session that must bind, before it has", () => {
  it("gets no live ticket, no provider access token, no account page", async () => {
    for (const revocation of ["strict", "eventual"] as const) {
      const userId = freshUser();
      const ctx = app(userId, requiring(revocation));
      const { jar } = await signIn(ctx, userId);
      expect(await ctx.sessions.liveTicket(header(jar))).toBeNull();
      await expect(ctx.sessions.accessTokenFor(header(jar))).rejects.toMatchObject({ code: "unauthenticated" });
      expect(
        await ctx.sessions.resolveSession(new Request(`${ORIGIN}/`, { headers: { Cookie: header(jar) } })),
      ).toBeNull();
    }
  });

  it("the binding page's return_to never leaves the site, signed in or out", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar } = await signIn(ctx, userId);
    for (const target of [
      "https://evil.example/x",
      "//evil.example",
      "/\\evil.example",
      "/%2F%2Fevil.example",
      "javascript:alert(1)",
      "/./%2F/evil.example",
    ]) {
      const query = `?return_to=${encodeURIComponent(target)}`;
      const ready = await page(ctx, jar, query);
      expect(ready.status).toBe(303);
      const onward = ready.headers.get("Location")!;
      expect(onward.startsWith("/") && !onward.startsWith("//")).toBe(true);
      expect(new URL(onward, ORIGIN).origin).toBe(ORIGIN);
      const out = await page(ctx, {}, query);
      const login = new URL(out.headers.get("Location")!, ORIGIN);
      expect(login.pathname).toBe("/auth/login");
      expect(new URL(login.searchParams.get("return_to")!, ORIGIN).origin).toBe(ORIGIN);
    }
  });
});

describe("the KV bound flag", () => {
  it("survives the sliding write (eventual mode), so a copied cookie stays refused after it", async () => {
    const userId = freshUser();
    const ctx = app(userId, { deviceBinding: "opportunistic", revocation: "eventual", refreshInterval: 60 });
    const { jar, sessionId } = await boundSession(ctx, userId, await DbscClient.create("ES256"));
    const before = (await ctx.sessions.store.get(sessionId))!.lastSeenAt;
    ctx.clock.now += 2 * 60 * 1000;
    expect(await resolves(ctx, jar)).toBe(true);
    const after = (await ctx.sessions.store.get(sessionId))!;
    expect(after.lastSeenAt).toBeGreaterThan(before);
    expect(after.bound).toBe(true);
    expect(await env.SESSIONS.get(ctx.sessions.store.key(sessionId))).toContain('"bound":true');
    expect(await resolves(ctx, { [SESSION_COOKIE]: jar[SESSION_COOKIE]! })).toBe(false);
  });
});
