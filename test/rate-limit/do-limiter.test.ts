import { listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { compose } from "gatehouse-workers";
import { StatefulObjectClient } from "gatehouse-workers/bindings";
import {
  DORateLimiter,
  type RateCheckResult,
  RateLimitError,
  RateLimiter,
  type RateLimiterOptions,
} from "gatehouse-workers/rate-limit";
import { fakeRateLimiter, restoreRateLimiter } from "gatehouse-workers/testing";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { manualClock, recordingLogger, uniqueKey } from "./helpers";
import type { CountingRateLimiterDO, RateLimiterDO } from "./worker";

const client = () => new StatefulObjectClient(env.RATE_LIMITER);
const ok = () => new Response("ok");
const request = (key: string) => new Request("https://app.test/api", { headers: { "CF-Connecting-IP": key } });

function limiter(options: Partial<RateLimiterOptions> & { clock?: () => number } = {}) {
  return new DORateLimiter(client(), { limit: 3, window: 10, prefix: uniqueKey("p"), ...options });
}

describe("DORateLimiter: fixed window", () => {
  it("admits limit requests, denies the next until the window ends, then admits again", async () => {
    const clock = manualClock(4_000); // 4 s into a 10 s window
    const rl = limiter({ clock });
    const key = uniqueKey();
    const first = await rl.check(key);
    expect(first).toMatchObject({ allowed: true, remaining: 2, source: "store" });
    expect(first.resetAt).toBe(clock() + 6_000);
    expect(await rl.check(key)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await rl.check(key)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await rl.check(key)).toMatchObject({ allowed: false, remaining: 0, retryAfter: 6, source: "store" });
    clock.advance(5_999); // 1 ms before the window ends
    expect(await rl.check(key)).toMatchObject({ allowed: false, retryAfter: 1 });
    clock.advance(1); // exactly the next window
    expect(await rl.check(key)).toMatchObject({ allowed: true, remaining: 2, source: "store" });
  });

  it("counts keys, limits and windows separately", async () => {
    const clock = manualClock();
    const prefix = uniqueKey("shared");
    const small = new DORateLimiter(client(), { limit: 1, window: 10, clock, prefix });
    const large = new DORateLimiter(client(), { limit: 5, window: 10, clock, prefix });
    const key = uniqueKey();
    expect((await small.check(key)).allowed).toBe(true);
    expect((await small.check(key)).allowed).toBe(false);
    // Same object (same key), another policy: its own counter.
    expect(await large.check(key)).toMatchObject({ allowed: true, remaining: 4 });
    expect((await small.check(uniqueKey())).allowed).toBe(true);
  });

  it("routes every key to its own object, named prefix + key", async () => {
    const prefix = uniqueKey("own");
    const rl = new DORateLimiter(new StatefulObjectClient(env.COUNTING_LIMITER), { limit: 5, window: 60, prefix });
    const keys = [uniqueKey(), uniqueKey(), uniqueKey()];
    for (const key of keys) await rl.check(key);
    await rl.check(keys[0]!);
    const ids = (await listDurableObjectIds(env.COUNTING_LIMITER)).map((id) => id.toString());
    for (const key of keys) {
      const id = env.COUNTING_LIMITER.idFromName(`${prefix}${key}`);
      expect(ids).toContain(id.toString());
      const served = await runInDurableObject(env.COUNTING_LIMITER.get(id), (o: CountingRateLimiterDO) => o.served);
      expect(served).toBe(key === keys[0] ? 2 : 1);
    }
  });

  it("admits exactly 50 of 200 concurrent checks on one key", async () => {
    const rl = new DORateLimiter(client(), { limit: 50, window: 60, clock: manualClock(), prefix: uniqueKey("c") });
    const key = uniqueKey();
    const results = await Promise.all(Array.from({ length: 200 }, () => rl.check(key)));
    const admitted = results.filter((r) => r.allowed);
    expect(admitted).toHaveLength(50);
    expect(new Set(admitted.map((r) => r.remaining))).toEqual(new Set(Array.from({ length: 50 }, (_, i) => i)));
    expect(results.filter((r) => !r.allowed).every((r) => r.remaining === 0 && r.retryAfter === 60)).toBe(true);
  });

  it("admits exactly 50 of 200 concurrent requests through the middleware", async () => {
    const rl = new DORateLimiter(client(), { limit: 50, window: 60, clock: manualClock(), prefix: uniqueKey("m") });
    const run = compose([rl], ok);
    const key = uniqueKey();
    const responses = await Promise.all(Array.from({ length: 200 }, () => run(request(key))));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(50);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(150);
  });

  it("never admits more than limit per window, whatever the timing (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2_500 }), fc.integer({ min: 1, max: 4 })), {
          minLength: 1,
          maxLength: 12,
        }),
        async (limit, steps) => {
          const clock = manualClock();
          const rl = new DORateLimiter(client(), { limit, window: 2, clock, prefix: uniqueKey("prop") });
          const key = uniqueKey();
          const attempts = new Map<number, number>();
          const admitted = new Map<number, number>();
          for (const [advance, burst] of steps) {
            clock.advance(advance);
            const window = Math.floor(clock() / 2_000);
            const results = await Promise.all(Array.from({ length: burst }, () => rl.check(key)));
            attempts.set(window, (attempts.get(window) ?? 0) + burst);
            admitted.set(window, (admitted.get(window) ?? 0) + results.filter((r) => r.allowed).length);
          }
          for (const [window, n] of attempts) expect(admitted.get(window)).toBe(Math.min(limit, n));
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("DORateLimiter: answers and headers", () => {
  it("puts draft-10 headers on an admitted response", async () => {
    const clock = manualClock(30_000); // halfway through a 60 s window
    const rl = new DORateLimiter(client(), { limit: 100, window: 60, clock, prefix: uniqueKey("h") });
    const res = await compose([rl], ok)(request(uniqueKey()));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok");
    expect(res.headers.get("RateLimit-Policy")).toBe('"default";q=100;w=60');
    expect(res.headers.get("RateLimit")).toBe('"default";r=99;t=30');
  });

  it("answers 429 with Retry-After, JSON and headers over the limit", async () => {
    const clock = manualClock(2_500);
    const rl = new DORateLimiter(client(), {
      limit: 1,
      window: 10,
      clock,
      prefix: uniqueKey("429"),
      policyName: "api",
    });
    let reached = 0;
    const run = compose([rl], () => {
      reached++;
      return ok();
    });
    const key = uniqueKey();
    await run(request(key));
    const res = await run(request(key));
    expect(res.status).toBe(429);
    expect(reached).toBe(1);
    expect(res.headers.get("Retry-After")).toBe("8"); // 7.5 s left, rounded up
    expect(res.headers.get("RateLimit-Policy")).toBe('"api";q=1;w=10');
    expect(res.headers.get("RateLimit")).toBe('"api";r=0;t=8');
    expect(res.headers.get("Content-Type")).toMatch(/application\/json/);
    expect(await res.json()).toEqual({
      error: "rate_limited",
      message: "Too many requests: at most 1 per 10 s. Retry in 8 s.",
      retryAfter: 8,
    });
  });

  it("copies an immutable downstream response to add its headers", async () => {
    const rl = new DORateLimiter(client(), { limit: 5, window: 60, clock: manualClock(), prefix: uniqueKey("imm") });
    const res = await compose([rl], () => Response.redirect("https://app.test/next", 302))(request(uniqueKey()));
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("https://app.test/next");
    expect(res.headers.get("RateLimit")).toBe('"default";r=4;t=60');
  });

  it("works as Hono middleware and short-circuits the route", async () => {
    const rl = new DORateLimiter(client(), { limit: 1, window: 60, clock: manualClock(), prefix: uniqueKey("hono") });
    const app = new Hono();
    let reached = 0;
    app.use("/api/*", rl.hono());
    app.get("/api/x", (c) => {
      reached++;
      return c.json({ ok: true });
    });
    const key = uniqueKey();
    const first = await app.request("/api/x", { headers: { "CF-Connecting-IP": key } });
    expect(first.status).toBe(200);
    expect(first.headers.get("RateLimit")).toBe('"default";r=0;t=60');
    const second = await app.request("/api/x", { headers: { "CF-Connecting-IP": key } });
    expect(second.status).toBe(429);
    expect(second.headers.get("Retry-After")).toBe("60");
    expect(reached).toBe(1);
  });
});

describe("DORateLimiter: concurrent checks of one key are coalesced", () => {
  const counted = (prefix: string, key: string) => {
    const ns = env.COUNTING_LIMITER;
    const stub = ns.get(ns.idFromName(`${prefix}${key}`));
    return runInDurableObject(stub, (o: CountingRateLimiterDO) => ({ served: o.served, checks: o.checks }));
  };

  it("asks the object once for a burst and decides every check exactly, in arrival order", async () => {
    const prefix = uniqueKey("burst");
    const rl = new DORateLimiter(new StatefulObjectClient(env.COUNTING_LIMITER), {
      limit: 50,
      window: 60,
      clock: manualClock(),
      prefix,
    });
    const key = uniqueKey();
    const results = await Promise.all(Array.from({ length: 200 }, () => rl.check(key)));
    expect(await counted(prefix, key)).toEqual({ served: 1, checks: 200 });
    // Arrival order: the first 50 callers are the admitted ones, with 49 … 0 left.
    expect(results.slice(0, 50).map((r) => [r.allowed, r.remaining])).toEqual(
      Array.from({ length: 50 }, (_, i) => [true, 49 - i]),
    );
    expect(results.slice(50).every((r) => !r.allowed && r.retryAfter === 60 && r.source === "store")).toBe(true);
  });

  it("sends the checks that arrive while a call is in flight as the next call", async () => {
    const prefix = uniqueKey("pipe");
    const rl = new DORateLimiter(new StatefulObjectClient(env.COUNTING_LIMITER), {
      limit: 1_000,
      window: 60,
      clock: manualClock(),
      prefix,
    });
    const key = uniqueKey();
    const first = rl.check(key);
    await scheduler.wait(0);
    const rest = await Promise.all(Array.from({ length: 30 }, () => rl.check(key)));
    expect((await first).remaining).toBe(999);
    expect(rest.map((r) => r.remaining)).toEqual(Array.from({ length: 30 }, (_, i) => 998 - i));
    expect(await counted(prefix, key)).toEqual({ served: 2, checks: 31 });
  });

  it("keeps different windows of an injected clock apart", async () => {
    const clock = manualClock(59_999);
    const rl = new DORateLimiter(client(), { limit: 1, window: 60, clock, prefix: uniqueKey("win") });
    const key = uniqueKey();
    const before = rl.check(key);
    clock.advance(1);
    const after = rl.check(key);
    expect([(await before).allowed, (await after).allowed]).toEqual([true, true]);
  });

  it("answers a failed batch with the store-failure policy for every check of it", async () => {
    const logger = recordingLogger();
    const rl = new DORateLimiter(new StatefulObjectClient(env.BROKEN_LIMITER), {
      limit: 5,
      window: 60,
      onStoreError: "deny",
      logger: logger.logger,
    });
    const results = await Promise.all(Array.from({ length: 10 }, () => rl.check("203.0.113.9")));
    expect(results.every((r) => !r.allowed && r.source === "store_error")).toBe(true);
    expect(logger.entries).toHaveLength(10);
  });
});

describe("RateLimiterDO.checkBatch", () => {
  const stub = () => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(uniqueKey("batch")));
  const at = manualClock(30_000)();

  it("admits while the window has room and refuses the rest with one reset", async () => {
    const o = stub();
    expect(await o.checkBatch({ key: "k", limit: 5, window: 60, now: at, count: 3 })).toEqual({
      admitted: 3,
      remaining: 2,
      resetAt: at + 30_000,
    });
    expect(await o.checkBatch({ key: "k", limit: 5, window: 60, now: at, count: 4 })).toEqual({
      admitted: 2,
      remaining: 0,
      retryAfter: 30,
      resetAt: at + 30_000,
    });
    expect(await o.check({ key: "k", limit: 5, window: 60, now: at })).toMatchObject({ allowed: false, remaining: 0 });
  });

  it.each([0, 1_001, 1.5, "2", undefined])("refuses count %s", async (count) => {
    await runInDurableObject(stub(), (o: RateLimiterDO) => {
      expect(() => o.checkBatch({ key: "k", limit: 5, window: 60, now: at, count: count as number })).toThrow(
        /invalid_count/,
      );
    });
  });
});

describe("DORateLimiter: blocked-key memory", () => {
  it("answers an already-denied key without another round trip until its window ends", async () => {
    const clock = manualClock();
    const prefix = uniqueKey("mem");
    const ns = env.COUNTING_LIMITER;
    const rl = new DORateLimiter(new StatefulObjectClient(ns), { limit: 2, window: 60, clock, prefix });
    const key = uniqueKey();
    const stub = ns.get(ns.idFromName(`${prefix}${key}`));
    const served = () => runInDurableObject(stub, (o: CountingRateLimiterDO) => o.served);
    await rl.check(key);
    await rl.check(key);
    expect(await rl.check(key)).toMatchObject({ allowed: false, source: "store" });
    expect(await served()).toBe(3);
    for (let i = 0; i < 1_000; i++) {
      const d = await rl.check(key);
      expect(d.allowed).toBe(false);
      expect(d.source).toBe("memory");
    }
    // A limiter built later (per request, say) shares the isolate's memory.
    const again = new DORateLimiter(new StatefulObjectClient(ns), { limit: 2, window: 60, clock, prefix });
    expect(await again.check(key)).toMatchObject({ allowed: false, source: "memory", retryAfter: 60 });
    expect(await served()).toBe(3);
    clock.advance(59_999);
    expect(await rl.check(key)).toMatchObject({ allowed: false, source: "memory", retryAfter: 1 });
    clock.advance(1);
    expect(await rl.check(key)).toMatchObject({ allowed: true, source: "store", remaining: 1 });
    expect(await served()).toBe(4);
  });

  it("only ever denies: other keys and other policies still reach the store", async () => {
    const clock = manualClock();
    const prefix = uniqueKey("mem2");
    const strict = new DORateLimiter(client(), { limit: 1, window: 60, clock, prefix });
    const lenient = new DORateLimiter(client(), { limit: 3, window: 60, clock, prefix });
    const key = uniqueKey();
    await strict.check(key);
    expect((await strict.check(key)).source).toBe("store");
    expect((await strict.check(key)).source).toBe("memory");
    expect(await lenient.check(key)).toMatchObject({ allowed: true, source: "store" });
    expect(await strict.check(uniqueKey())).toMatchObject({ allowed: true, source: "store" });
  });
});

describe("DORateLimiter: store failures", () => {
  const broken = () => new StatefulObjectClient(env.BROKEN_LIMITER);

  it("admits under onStoreError allow (the default), with r=0, and logs without the key", async () => {
    const { logger, entries } = recordingLogger();
    const rl = new DORateLimiter(broken(), { limit: 5, window: 60, clock: manualClock(), logger });
    expect(rl.onStoreError).toBe("allow");
    const key = "198.51.100.23";
    const res = await compose([rl], ok)(request(key));
    expect(res.status).toBe(200);
    expect(res.headers.get("RateLimit")).toBe('"default";r=0;t=60');
    expect(entries).toHaveLength(1);
    const error = entries[0]!.error as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.code).toBe("store_error");
    expect(entries[0]!.message).toMatch(/durable-object store failed \(store_error\); policy allow/);
    expect(JSON.stringify(entries) + entries[0]!.message).not.toContain(key);
  });

  it("answers 503 JSON with Retry-After under onStoreError deny, and does not remember the key", async () => {
    const { logger, entries } = recordingLogger();
    const rl = new DORateLimiter(broken(), {
      limit: 5,
      window: 60,
      clock: manualClock(),
      logger,
      onStoreError: "deny",
    });
    const run = compose([rl], ok);
    const res = await run(request("k"));
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("1");
    expect(res.headers.get("RateLimit-Policy")).toBe('"default";q=5;w=60');
    expect(await res.json()).toEqual({
      error: "rate_limit_unavailable",
      message: "The rate limiter is unavailable. Retry shortly.",
      retryAfter: 1,
    });
    await run(request("k"));
    expect(entries).toHaveLength(2); // the second request went to the store again
    expect(await rl.check("k")).toMatchObject({ allowed: false, source: "store_error", retryAfter: 1 });
  });

  it("treats a store slower than timeoutMs as a failure, under each policy", async () => {
    const slow = new StatefulObjectClient(env.SLOW_LIMITER);
    for (const onStoreError of ["allow", "deny"] as const) {
      const { logger, entries } = recordingLogger();
      const rl = new DORateLimiter(slow, {
        limit: 5,
        window: 60,
        timeoutMs: 50,
        logger,
        onStoreError,
        prefix: uniqueKey(),
      });
      const res = await compose([rl], ok)(request(uniqueKey()));
      expect(res.status).toBe(onStoreError === "allow" ? 200 : 503);
      expect((entries[0]!.error as RateLimitError).code).toBe("store_timeout");
    }
  });
});

describe("DORateLimiter: configuration", () => {
  it.each([
    [{ limit: 0, window: 60 }, /limit/],
    [{ limit: 1.5, window: 60 }, /limit/],
    [{ limit: 10, window: 0 }, /window/],
    [{ limit: 10, window: 1e12 }, /window/],
    [{ limit: 10, window: 60, onStoreError: "maybe" }, /onStoreError/],
    [{ limit: 10, window: 60, policyName: 'a"b' }, /policyName/],
    [{ limit: 10, window: 60, timeoutMs: 0 }, /timeoutMs/],
  ])("rejects %j at construction", (config, message) => {
    const build = () => new DORateLimiter(client(), config as RateLimiterOptions);
    expect(build).toThrow(RateLimitError);
    expect(build).toThrow(message);
  });
});

describe("RateLimiter: a limiter over another check (how a service-backed limiter is built)", () => {
  // The shape of a limiter whose store is a remote call, e.g. AuthServiceClient.checkRateLimit.
  class RemoteRateLimiter extends RateLimiter {
    protected readonly storeName = "remote";
    calls = 0;
    protected async consult(key: string, now: number): Promise<RateCheckResult> {
      this.calls++;
      const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`remote:${key}`));
      return stub.check({ key, limit: this.limit, window: this.window, now });
    }
  }

  it("gets headers, 429s, blocked-key memory and the fake from the base class", async () => {
    const rl = new RemoteRateLimiter({ limit: 1, window: 60, clock: manualClock(15_000) });
    const run = compose([rl], ok);
    const key = uniqueKey();
    expect((await run(request(key))).headers.get("RateLimit")).toBe('"default";r=0;t=45');
    expect((await run(request(key))).status).toBe(429);
    expect((await run(request(key))).status).toBe(429);
    expect(rl.calls).toBe(2); // the third was answered from memory
    const fake = fakeRateLimiter();
    try {
      expect((await run(request(key))).status).toBe(200);
      fake.assertAllowed(key);
    } finally {
      restoreRateLimiter();
    }
  });
});
