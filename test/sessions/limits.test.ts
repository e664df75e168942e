import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { freshUser, manager, newSession, ORIGIN } from "./helpers";

let ip = 0;
const nextIp = () => `198.51.100.${++ip}`;

describe("rate limits of the auth routes", () => {
  it("lets 20 logins a minute through per address, then shows a 429 page with Retry-After", async () => {
    const address = nextIp();
    for (let i = 0; i < 20; i++) {
      const res = await exports.default.fetch(`${ORIGIN}/auth/login`, {
        headers: { "CF-Connecting-IP": address },
        redirect: "manual",
      });
      expect(res.status).toBe(302);
      expect(res.headers.get("RateLimit-Policy")).toBe('"auth-login";q=20;w=60');
    }
    const limited = await exports.default.fetch(`${ORIGIN}/auth/login`, {
      headers: { "CF-Connecting-IP": address, Accept: "text/html" },
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("Content-Type")).toContain("text/html");
    expect(await limited.text()).toContain("Too many attempts");
    const json = await exports.default.fetch(`${ORIGIN}/auth/login`, {
      headers: { "CF-Connecting-IP": address, Accept: "application/json" },
    });
    expect(json.status).toBe(429);
    expect(await json.json()).toMatchObject({ error: "rate_limited" });
    // Another address is not affected.
    const other = await exports.default.fetch(`${ORIGIN}/auth/login`, {
      headers: { "CF-Connecting-IP": nextIp() },
      redirect: "manual",
    });
    expect(other.status).toBe(302);
  });

  it("tells the user's timeline once when requests carrying their session are locked out", async () => {
    const address = nextIp();
    const sessions = manager();
    const userId = freshUser();
    const { sessionId, cookie } = await newSession(sessions, userId);
    const statuses: number[] = [];
    for (let i = 0; i < 24; i++) {
      const res = await exports.default.fetch(`${ORIGIN}/auth/login`, {
        headers: { "CF-Connecting-IP": address, Cookie: cookie },
        redirect: "manual",
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
    const { events } = await sessions.timeline(userId);
    const lockouts = events.filter((e) => e.type === "ratelimit.lockout");
    expect(lockouts).toHaveLength(1);
    expect(lockouts[0]).toMatchObject({ sessionId, ip: address, detail: { family: "login" } });
    expect(Number(lockouts[0]!.detail.retryAfter)).toBeGreaterThan(0);
    // Requests another site made the browser send are not recorded (a page could drive them).
    const bystander = freshUser();
    const other = await newSession(sessions, bystander);
    for (let i = 0; i < 3; i++) {
      const res = await exports.default.fetch(`${ORIGIN}/auth/login`, {
        headers: { "CF-Connecting-IP": address, Cookie: other.cookie, "Sec-Fetch-Site": "cross-site" },
        redirect: "manual",
      });
      expect(res.status).toBe(429);
    }
    // A refused request without a session is no one's event (and the limit still holds).
    const anonymous = await exports.default.fetch(`${ORIGIN}/auth/login`, {
      headers: { "CF-Connecting-IP": address, Cookie: "theme=dark" },
      redirect: "manual",
    });
    expect(anonymous.status).toBe(429);
    expect((await sessions.timeline(bystander)).events.filter((e) => e.type === "ratelimit.lockout")).toEqual([]);
  });

  it("limits the callback separately from login", async () => {
    const address = nextIp();
    for (let i = 0; i < 20; i++) {
      await exports.default.fetch(`${ORIGIN}/auth/login`, {
        headers: { "CF-Connecting-IP": address },
        redirect: "manual",
      });
    }
    const callback = await exports.default.fetch(`${ORIGIN}/auth/callback?code=x&state=y`, {
      headers: { "CF-Connecting-IP": address },
    });
    expect(callback.status).toBe(400); // the callback's own limit still has room
  });

  it("limits the admin endpoint", async () => {
    const address = nextIp();
    let last = 0;
    for (let i = 0; i < 61; i++) {
      last = (
        await exports.default.fetch(`${ORIGIN}/admin/users/user_x/sessions`, {
          headers: { "CF-Connecting-IP": address },
        })
      ).status;
    }
    expect(last).toBe(429);
  });
});

describe("AuthService.checkRateLimit", () => {
  it("admits exactly `limit` per window for a key and shares the count across callers", async () => {
    const key = `shared-${Date.now()}`;
    const results = await Promise.all(Array.from({ length: 8 }, () => exports.AuthService.checkRateLimit(key, 5, 60)));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    const denied = results.find((r) => !r.allowed)!;
    expect(denied.retryAfter).toBeGreaterThanOrEqual(1);
    expect((await exports.AuthService.checkRateLimit(`${key}-other`, 5, 60)).allowed).toBe(true);
  });

  it("rejects bad arguments with a clear error", async () => {
    await expect(exports.AuthService.checkRateLimit("", 5, 60)).rejects.toThrow(/key must be/);
    await expect(exports.AuthService.checkRateLimit("k", 0, 60)).rejects.toThrow(/limit/);
    await expect(exports.AuthService.checkRateLimit("k", 5, 1.5)).rejects.toThrow(/window/);
  });
});
