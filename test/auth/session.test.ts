import { env } from "cloudflare:workers";
import fc from "fast-check";
import { parseCookie, SessionManager } from "gatehouse-workers/auth";
import { describe, expect, it } from "vitest";
import { SESSION_DEFAULTS } from "../../workers/auth/session/config";
import { ada, countingKV, makeSessions, SECRET, TestClock } from "./helpers";

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function requestWith(setCookie: string): Request {
  return new Request("https://app.test/", { headers: { Cookie: setCookie.split(";")[0]! } });
}

describe("SessionManager", () => {
  it("creates a session whose cookie resolves to the user", async () => {
    const sessions = makeSessions();
    const { sessionId, response } = await sessions.createSession(ada, "org_acme");
    const setCookie = response.headers.get("Set-Cookie")!;
    const user = await sessions.resolveUser(requestWith(setCookie));
    expect(user).toEqual({
      id: "user_ada",
      email: "ada@acme.test",
      firstName: "Ada",
      lastName: "Lovelace",
      organizationId: "org_acme",
      memberships: ada.memberships,
    });
    expect(sessionId).toMatch(/^[0-9a-f]{64}$/);
  });

  it("sets HttpOnly, Secure, SameSite=Lax, Path=/ and the __Host- prefix by default", async () => {
    const { response } = await makeSessions().createSession(ada);
    const header = response.headers.get("Set-Cookie")!;
    expect(header).toMatch(/^__Host-gh_session=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43};/);
    expect(header).toContain("HttpOnly");
    expect(header).toContain("Secure");
    expect(header).toContain("SameSite=Lax");
    expect(header).toContain("Path=/");
    expect(header).not.toContain("Domain");
  });

  it("switches to __Secure- with Domain when a cookie domain is configured", async () => {
    const sessions = makeSessions({ cookie: { domain: "example.com" } });
    const header = (await sessions.createSession(ada)).response.headers.get("Set-Cookie")!;
    expect(header).toMatch(/^__Secure-gh_session=/);
    expect(header).toContain("Domain=example.com");
    expect(await sessions.resolveUser(requestWith(header))).not.toBeNull();
  });

  it("stores only a hash of the token: the KV key and value never contain it", async () => {
    const sessions = makeSessions();
    const { sessionId, response } = await sessions.createSession(ada);
    const cookie = parseCookie(response.headers.get("Set-Cookie")!.split(";")[0]!)["__Host-gh_session"]!;
    const token = cookie.split(".")[0]!;
    expect(sessionId).toBe(await sha256Hex(token));
    const raw = await env.SESSIONS.get(`sess:${sessionId}`);
    expect(raw).not.toBeNull();
    expect(raw).not.toContain(token);
    const { keys } = await env.SESSIONS.list({ prefix: "sess:" });
    expect(keys.some((k) => k.name.includes(token))).toBe(false);
  });

  it("issues a fresh id at every login (no fixation)", async () => {
    const sessions = makeSessions();
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await sessions.createSession(ada)).sessionId);
    expect(ids.size).toBe(5);
  });

  it("returns null for missing, malformed, tampered, or unknown-secret cookies", async () => {
    const sessions = makeSessions();
    const header = (await sessions.createSession(ada)).response.headers.get("Set-Cookie")!;
    const value = header.split(";")[0]!.split("=")[1]!;
    const cases = [
      "",
      "__Host-gh_session=",
      "__Host-gh_session=abc",
      `__Host-gh_session=${value}x`,
      `__Host-gh_session=${value.slice(0, 43)}.${"A".repeat(43)}`,
      `__Host-gh_session=${"B".repeat(43)}${value.slice(43)}`,
      "__Host-gh_session=%%%%",
    ];
    for (const cookie of cases) {
      expect(await sessions.resolveUser(new Request("https://a.test/", { headers: { Cookie: cookie } }))).toBeNull();
    }
    const other = new SessionManager(env.SESSIONS, "a-completely-different-secret-value");
    expect(await other.resolveUser(requestWith(header))).toBeNull();
  });

  it("rejects 10,000 random mutations of a valid cookie (property)", async () => {
    const sessions = makeSessions();
    const header = (await sessions.createSession(ada)).response.headers.get("Set-Cookie")!;
    const value = header.split(";")[0]!.slice("__Host-gh_session=".length);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=;% ";
    const mutation = fc.oneof(
      fc.record({
        kind: fc.constant("replace" as const),
        at: fc.nat(value.length - 1),
        ch: fc.constantFrom(...alphabet),
      }),
      fc.record({ kind: fc.constant("insert" as const), at: fc.nat(value.length), ch: fc.constantFrom(...alphabet) }),
      fc.record({ kind: fc.constant("delete" as const), at: fc.nat(value.length - 1), ch: fc.constant("") }),
    );
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        let v = value;
        for (const m of mutations) {
          const at = Math.min(m.at, v.length);
          v =
            m.kind === "replace"
              ? v.slice(0, at) + m.ch + v.slice(at + 1)
              : m.kind === "insert"
                ? v.slice(0, at) + m.ch + v.slice(at)
                : v.slice(0, at) + v.slice(at + 1);
        }
        // Only mutations that change the value the server reads count (RFC 6265: surrounding
        // whitespace and a trailing ";" are not part of the value).
        fc.pre(parseCookie(`__Host-gh_session=${v}`)["__Host-gh_session"] !== value);
        checked++;
        const req = new Request("https://a.test/", { headers: { Cookie: `__Host-gh_session=${v}` } });
        expect(await sessions.resolveUser(req)).toBeNull();
      }),
      { numRuns: 10_000 },
    );
    expect(checked).toBeGreaterThan(9_000);
  });

  it("never throws on any Cookie header (property)", async () => {
    const sessions = makeSessions();
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (cookie) => {
        const req = new Request("https://a.test/");
        try {
          req.headers.set("Cookie", cookie);
        } catch {
          return; // not a valid header value at all: the runtime refuses it before us
        }
        expect(await sessions.resolveUser(req)).toBeNull();
      }),
      { numRuns: 1_000 },
    );
  });

  it("verifies with every secret during rotation but signs with the first", async () => {
    const old = new SessionManager(env.SESSIONS, "the-old-secret-0123456789");
    const header = (await old.createSession(ada)).response.headers.get("Set-Cookie")!;
    const rotated = new SessionManager(env.SESSIONS, [SECRET, "the-old-secret-0123456789"]);
    expect(await rotated.resolveUser(requestWith(header))).not.toBeNull();
    const fresh = (await rotated.createSession(ada)).response.headers.get("Set-Cookie")!;
    expect(await makeSessions().resolveUser(requestWith(fresh))).not.toBeNull();
    expect(await old.resolveUser(requestWith(fresh))).toBeNull();
  });

  it("ends an idle session after the idle timeout, and slides it while in use", async () => {
    const clock = new TestClock();
    const sessions = makeSessions({ clock: clock.fn, idleTimeout: 7200, refreshInterval: 600 });
    const header = (await sessions.createSession(ada)).response.headers.get("Set-Cookie")!;
    clock.advance(7000);
    expect(await sessions.resolveUser(requestWith(header))).not.toBeNull(); // slides: idle now ends at +7000+7200
    clock.advance(7000);
    expect(await sessions.resolveUser(requestWith(header))).not.toBeNull();
    clock.advance(7201);
    expect(await sessions.resolveUser(requestWith(header))).toBeNull();
  });

  it("ends a session at its absolute lifetime however active", async () => {
    const clock = new TestClock();
    const sessions = makeSessions({ clock: clock.fn, idleTimeout: 3600, refreshInterval: 60, absoluteTimeout: 10_000 });
    const header = (await sessions.createSession(ada)).response.headers.get("Set-Cookie")!;
    for (let t = 0; t < 9_900; t += 1_800) {
      clock.advance(1_800);
      if (clock.now < Date.UTC(2026, 10, 22, 12) + 10_000_000)
        expect(await sessions.resolveUser(requestWith(header))).not.toBeNull();
    }
    clock.advance(1_000);
    expect(await sessions.resolveUser(requestWith(header))).toBeNull();
  });

  it("writes nothing for 1,000 requests inside one refresh interval, then exactly once", async () => {
    const clock = new TestClock();
    const kv = countingKV();
    const sessions = makeSessions({ clock: clock.fn }, kv);
    const header = (await sessions.createSession(ada)).response.headers.get("Set-Cookie")!;
    kv.writes = 0;
    for (let i = 0; i < 1_000; i++) {
      clock.advance(3); // 3,000 s in all: inside the default 1 h interval
      expect(await sessions.resolveUser(requestWith(header))).not.toBeNull();
    }
    expect(kv.writes).toBe(0);
    clock.advance(SESSION_DEFAULTS.refreshInterval);
    await sessions.resolveUser(requestWith(header));
    await sessions.resolveUser(requestWith(header));
    expect(kv.writes).toBe(1);
  });

  it("gives KV a TTL of at least 60 s and no more than the session's remaining life", async () => {
    const clock = new TestClock(Date.now());
    const sessions = makeSessions({ clock: clock.fn, idleTimeout: 61, absoluteTimeout: 120, refreshInterval: 30 });
    const { sessionId } = await sessions.createSession(ada);
    const { keys } = await env.SESSIONS.list({ prefix: `sess:${sessionId}` });
    const nowSec = Math.floor(Date.now() / 1000);
    expect(keys[0]!.expiration).toBeGreaterThanOrEqual(nowSec + 60);
    expect(keys[0]!.expiration).toBeLessThanOrEqual(nowSec + 62);
    expect(keys[0]!.metadata).toEqual({ userId: "user_ada" });
  });

  it("refuses timeouts below KV's 60 s floor and a refresh interval longer than the idle timeout", () => {
    expect(() => makeSessions({ idleTimeout: 30 })).toThrowError(/at least 60 seconds/);
    expect(() => makeSessions({ idleTimeout: 600, refreshInterval: 600 })).toThrowError(/refreshInterval/);
    expect(() => makeSessions({ idleTimeout: 1.5 })).toThrowError(/whole number/);
  });

  it("destroys a session: the cookie no longer resolves and the response clears it", async () => {
    const sessions = makeSessions();
    const { sessionId, response } = await sessions.createSession(ada);
    const header = response.headers.get("Set-Cookie")!;
    const cleared = await sessions.destroySession(sessionId);
    expect(cleared.headers.get("Set-Cookie")).toMatch(
      /^__Host-gh_session=; Max-Age=0; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
    expect(await sessions.resolveUser(requestWith(header))).toBeNull();
    expect(await env.SESSIONS.get(`sess:${sessionId}`)).toBeNull();
  });

  it("fails closed with a 503 AuthError when the store fails, instead of pretending the user is signed out", async () => {
    const sessions = makeSessions();
    const header = (await sessions.createSession(ada)).response.headers.get("Set-Cookie")!;
    const broken = {
      get: () => Promise.reject(new Error("KV GET failed: 503")),
      put: () => Promise.reject(new Error("KV PUT failed")),
    } as unknown as KVNamespace;
    const failing = new SessionManager(broken, SECRET);
    await expect(failing.resolveUser(requestWith(header))).rejects.toMatchObject({
      code: "session_store_unavailable",
      status: 503,
    });
    await expect(failing.createSession(ada)).rejects.toMatchObject({ code: "session_store_unavailable" });
  });
});

describe("SessionManager hooks", () => {
  it("tells onSignIn and onSignOut after the change, and a throwing hook never fails the request", async () => {
    const seen: string[] = [];
    const errors: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      const sessions = makeSessions({
        hooks: {
          onSignIn: ({ userId }) => {
            seen.push(`in ${userId}`);
            throw new Error("observer broke");
          },
          onSignOut: ({ sessionId }) => void seen.push(`out ${sessionId.length}`),
        },
      });
      const { sessionId } = await sessions.createSession(ada);
      expect(await sessions.store.get(sessionId)).not.toBeNull();
      await sessions.destroySession(sessionId);
      expect(seen).toEqual([`in ${ada.id}`, "out 64"]);
      expect(errors).toEqual([["gatehouse: onSignIn hook failed", "observer broke"]]);
    } finally {
      console.error = original;
    }
  });

  it("does not wait for a hook past hookTimeoutMs: a hanging observer never holds up a sign-in", async () => {
    const errors: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      const sessions = makeSessions({ hookTimeoutMs: 20, hooks: { onSignIn: () => new Promise<void>(() => {}) } });
      const { sessionId } = await sessions.createSession(ada);
      expect(await sessions.store.get(sessionId)).not.toBeNull();
      expect(errors[0]?.[0]).toBe("gatehouse: onSignIn hook took longer than 20 ms; not waited for");
    } finally {
      console.error = original;
    }
  });

  it("defaults the refresh interval to half a short idle timeout, and refuses settings that cannot work", () => {
    expect(makeSessions({ idleTimeout: 600 }).config.refreshInterval).toBe(300);
    expect(makeSessions().config.refreshInterval).toBe(3600);
    expect(() => makeSessions({ idleTimeout: 30 })).toThrow(/at least 60 seconds/);
    expect(() => makeSessions({ cookie: { name: "gh_login_abc" } })).toThrow(/another Gatehouse cookie/);
    expect(() => makeSessions({ cookie: { domain: "com" } })).toThrow(/cookie\.domain/);
    expect(makeSessions({ cookie: { domain: "localhost", secure: false } }).config.domain).toBe("localhost");
    expect(() => makeSessions({ hookTimeoutMs: 0 })).toThrow(/hookTimeoutMs/);
  });

  it("sets SameSite=Strict on the session cookie when asked", async () => {
    const { response } = await makeSessions({ cookie: { sameSite: "Strict" } }).createSession(ada);
    expect(response.headers.get("Set-Cookie")).toMatch(/; SameSite=Strict/);
  });
});
