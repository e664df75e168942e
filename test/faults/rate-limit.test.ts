/**
 * The rate limiter's store failing, where the limiter is used in the system:
 * the auth worker's own route limits, `AuthService.checkRateLimit`, and the
 * example consumer's `/api/quota` (AuthServiceRateLimiter over that RPC).
 * DORateLimiter's policies on their own (allow, deny → 503, timeouts) are
 * covered in test/rate-limit (do-limiter.test.ts, kv-limiter.test.ts).
 */
import { env } from "cloudflare:workers";
import { type AuthServiceBinding, AuthServiceClient } from "gatehouse-workers/client";
import { describe, expect, it } from "vitest";
import { AuthServiceRateLimiter, consumerFetch, expectCleanError, ORIGIN, signIn } from "./helpers";

const QUOTA = { limit: 100, window: 600 };

/** The quota's fixed window is aligned to the epoch: start a burst only with a few seconds of it left. */
async function withinOneWindow(): Promise<void> {
  const left = QUOTA.window * 1000 - (Date.now() % (QUOTA.window * 1000));
  if (left < 5_000) await scheduler.wait(left + 100);
}

const ok = async () => new Response("done");
const apiRequest = () => new Request(`${ORIGIN}/api/report`, { headers: { Accept: "application/json" } });

describe("the auth worker's route limits with their store failing", () => {
  it("admit (policy allow): login keeps working past its limit, never a 429 or a 500", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await env.LIMITER_DOWN.fetch(`${ORIGIN}/auth/login`, {
        headers: { "CF-Connecting-IP": "203.0.113.9" },
        redirect: "manual",
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(new Set(statuses)).toEqual(new Set([302]));
  });

  it("AuthService.checkRateLimit admits and says the store failed", async () => {
    const decision = await env.AUTH_LIMITER_DOWN.checkRateLimit(`fault-${Date.now()}`, 1, 60);
    expect(decision).toMatchObject({ allowed: true, source: "store_error" });
  });
});

describe("the example consumer's /api/quota (AuthServiceRateLimiter over AuthService.checkRateLimit)", () => {
  it("admits exactly 100 of 110 concurrent calls of one user; the rest get 429 JSON with Retry-After", async () => {
    const { cookie } = await signIn();
    await withinOneWindow();
    const answers = await Promise.all(
      Array.from({ length: 110 }, () => consumerFetch("AUTH", "/api/quota", { headers: { Cookie: cookie } })),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(QUOTA.limit);
    const limited = answers.filter((r) => r.status === 429);
    expect(limited).toHaveLength(10);
    expect(Number(limited[0]!.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(limited[0]!.headers.get("RateLimit-Policy")).toBe('"quota";q=100;w=600');
    await expectCleanError(limited[0]!, 429, "rate_limited");
    // Another user has a quota of their own.
    const other = await signIn();
    expect((await consumerFetch("AUTH", "/api/quota", { headers: { Cookie: other.cookie } })).status).toBe(200);
  });

  it("refuses a call without a session before counting it (401)", async () => {
    const res = await consumerFetch("AUTH", "/api/quota", { headers: { Accept: "application/json" } });
    await expectCleanError(res, 401, "unauthenticated");
  });

  it("the auth worker's store failing: the route admits (its policy is allow), marked r=0", async () => {
    const { cookie } = await signIn();
    const res = await consumerFetch("AUTH_LIMITER_DOWN", "/api/quota", { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("RateLimit")).toMatch(/^"quota";r=0;t=\d+$/);
  });

  it("a limiter with onStoreError deny answers 503 JSON with Retry-After, whether the store failed or the worker is unreachable", async () => {
    for (const binding of [env.AUTH_LIMITER_DOWN, env.AUTH_DOWN]) {
      const client = new AuthServiceClient(binding as unknown as AuthServiceBinding, { timeoutMs: 2_000 });
      const logged: string[] = [];
      const common = { ...QUOTA, keyExtractor: () => "user_x", logger: (message: string) => logged.push(message) };
      const allow = new AuthServiceRateLimiter(client, common);
      expect((await allow.handle(apiRequest(), ok)).status).toBe(200);
      const deny = new AuthServiceRateLimiter(client, { ...common, onStoreError: "deny" });
      const res = await deny.handle(apiRequest(), ok);
      expect(res.headers.get("Retry-After")).toBe("1");
      await expectCleanError(res, 503, "rate_limit_unavailable");
      expect(logged).toHaveLength(2);
      expect(logged.join("\n")).not.toContain("user_x");
    }
  });
});
