import { env } from "cloudflare:workers";
import { compose } from "gatehouse-workers";
import { KVStore, StatefulObjectClient } from "gatehouse-workers/bindings";
import { DORateLimiter, KVRateLimiter, RateLimitError } from "gatehouse-workers/rate-limit";
import { fakeRateLimiter, RateLimiterFake, restoreRateLimiter } from "gatehouse-workers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { activeRateLimiterFake } from "../../client-sdk/rate-limit";
import { failingKV, manualClock, recordingLogger, uniqueKey } from "./helpers";

afterEach(() => restoreRateLimiter());

function expectAssertionError(fn: () => void, message: RegExp): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).code).toBe("assertion_failed");
    expect((err as RateLimitError).message).toMatch(message);
    return;
  }
  expect.unreachable("the assertion should have thrown");
}

describe("RateLimiterFake", () => {
  it("allows every key until limitKey, and again after allowKey", () => {
    const fake = new RateLimiterFake();
    expect(fake.check("a").limited).toBe(false);
    fake.limitKey("a");
    expect(fake.check("a").limited).toBe(true);
    expect(fake.check("b").limited).toBe(false);
    fake.allowKey("a");
    expect(fake.check("a").limited).toBe(false);
  });

  it("assertChecked throws for a key never checked, and passes once checked", () => {
    const fake = new RateLimiterFake();
    fake.limitKey("a"); // marking is not checking
    expectAssertionError(() => fake.assertChecked("a"), /assertChecked: "a" was never checked/);
    fake.check("a");
    expect(() => fake.assertChecked("a")).not.toThrow();
  });

  it("assertLimited throws when never checked or when the last check was allowed", () => {
    const fake = new RateLimiterFake();
    expectAssertionError(() => fake.assertLimited("a"), /never checked/);
    fake.check("a");
    expectAssertionError(() => fake.assertLimited("a"), /last check of "a" was allowed/);
    fake.limitKey("a");
    fake.check("a");
    expect(() => fake.assertLimited("a")).not.toThrow();
    fake.allowKey("a");
    fake.check("a");
    expectAssertionError(() => fake.assertLimited("a"), /was allowed/);
  });

  it("assertAllowed throws when never checked or when the last check was limited", () => {
    const fake = new RateLimiterFake();
    expectAssertionError(() => fake.assertAllowed("a"), /never checked/);
    fake.limitKey("a");
    fake.check("a");
    expectAssertionError(() => fake.assertAllowed("a"), /last check of "a" was limited/);
    fake.allowKey("a");
    fake.check("a");
    expect(() => fake.assertAllowed("a")).not.toThrow();
  });

  it("reset clears limited keys and recorded checks", () => {
    const fake = new RateLimiterFake();
    fake.limitKey("a");
    fake.check("a");
    fake.reset();
    expectAssertionError(() => fake.assertChecked("a"), /never checked/);
    expect(fake.check("a").limited).toBe(false);
    expect(fake.checkedKeys()).toEqual(["a"]);
  });
});

describe("fakeRateLimiter / restoreRateLimiter", () => {
  // Stores that fail on contact: with the fake active, they must never be contacted.
  const brokenDO = () => new StatefulObjectClient(env.BROKEN_LIMITER);
  const brokenKV = () => new KVStore(failingKV(env.RL_KV, "get"));

  it("activates a fresh global fake and deactivates it", () => {
    expect(activeRateLimiterFake()).toBeNull();
    const first = fakeRateLimiter();
    expect(activeRateLimiterFake()).toBe(first);
    const second = fakeRateLimiter();
    expect(second).not.toBe(first);
    restoreRateLimiter();
    expect(activeRateLimiterFake()).toBeNull();
  });

  // fakeRateLimiter comes from gatehouse-workers/testing, the limiters from gatehouse-workers/rate-limit:
  // subpaths of one package share the module that holds the active fake.
  it("makes both limiters of /rate-limit defer to the fake of /testing, even limiters built before it was activated", async () => {
    const { logger, entries } = recordingLogger();
    const clock = manualClock(20_000);
    const limiters = [
      new DORateLimiter(brokenDO(), { limit: 1, window: 60, clock, logger, onStoreError: "deny" }),
      new KVRateLimiter(brokenKV(), { limit: 1, window: 60, clock, logger, onStoreError: "deny" }),
    ];
    const fake = fakeRateLimiter();
    fake.limitKey("203.0.113.66");
    for (const limiter of limiters) {
      const run = compose([limiter], () => new Response("ok"));
      const allowed = await run(new Request("https://x/", { headers: { "CF-Connecting-IP": "203.0.113.5" } }));
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get("RateLimit")).toBe('"default";r=1;t=40');
      // The fake never counts: a second request for the same key is still allowed.
      expect((await run(new Request("https://x/", { headers: { "CF-Connecting-IP": "203.0.113.5" } }))).status).toBe(
        200,
      );
      const limited = await run(new Request("https://x/", { headers: { "CF-Connecting-IP": "203.0.113.66" } }));
      expect(limited.status).toBe(429);
      expect(limited.headers.get("Retry-After")).toBe("40");
      expect(await limited.json()).toMatchObject({ error: "rate_limited" });
      expect(await limiter.check("203.0.113.66")).toMatchObject({ allowed: false, source: "fake" });
    }
    fake.assertAllowed("203.0.113.5");
    fake.assertLimited("203.0.113.66");
    expect(entries).toHaveLength(0); // no store was contacted
    restoreRateLimiter();
    for (const limiter of limiters) expect((await limiter.check("203.0.113.5")).source).toBe("store_error");
    expect(entries).toHaveLength(2);
  });

  it("records the extracted key, before any hashing, and bypasses blocked-key memory", async () => {
    const clock = manualClock();
    const limiter = new DORateLimiter(new StatefulObjectClient(env.RATE_LIMITER), {
      limit: 1,
      window: 60,
      clock,
      prefix: uniqueKey("fake"),
      keyExtractor: (request) => `user:${request.headers.get("x-user")}`,
    });
    await limiter.check("user:ada");
    expect((await limiter.check("user:ada")).allowed).toBe(false); // now remembered as denied
    const fake = fakeRateLimiter();
    const res = await compose(
      [limiter],
      () => new Response("ok"),
    )(new Request("https://x/", { headers: { "x-user": "ada" } }));
    expect(res.status).toBe(200);
    fake.assertAllowed("user:ada");
    const long = "k".repeat(1_000);
    await limiter.check(long);
    fake.assertChecked(long);
  });
});
