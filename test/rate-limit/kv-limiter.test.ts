import { env } from "cloudflare:workers";
import { compose } from "gatehouse-workers";
import { KVStore } from "gatehouse-workers/bindings";
import { KVRateLimiter, type RateLimitError, type RateLimiterOptions } from "gatehouse-workers/rate-limit";
import { describe, expect, it } from "vitest";
import { KV_MIN_TTL_SECONDS } from "../../client-sdk/bindings/kv";
import { failingKV, isolateView, manualClock, recordingLogger, uniqueKey } from "./helpers";

const ok = () => new Response("ok");
const request = (key: string) => new Request("https://app.test/api", { headers: { "CF-Connecting-IP": key } });

function kvLimiter(binding: KVNamespace, options: Partial<RateLimiterOptions> = {}) {
  return new KVRateLimiter(new KVStore(binding), { limit: 3, window: 10, prefix: uniqueKey("kv"), ...options });
}

describe("KVRateLimiter: fixed window", () => {
  it("admits limit requests, denies the next with Retry-After, admits again in the next window", async () => {
    const clock = manualClock(4_000);
    const rl = kvLimiter(isolateView(env.RL_KV).binding, { clock });
    const key = uniqueKey();
    expect(await rl.check(key)).toMatchObject({ allowed: true, remaining: 2, resetAt: clock() + 6_000 });
    clock.advance(1_000);
    expect(await rl.check(key)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await rl.check(key)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await rl.check(key)).toMatchObject({ allowed: false, remaining: 0, retryAfter: 5 });
    clock.advance(5_000);
    expect(await rl.check(key)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it("is exact inside one isolate: 50 concurrent checks, limit 10, admit 10", async () => {
    const rl = kvLimiter(isolateView(env.RL_KV).binding, { limit: 10, window: 60, clock: manualClock() });
    const key = uniqueKey();
    const results = await Promise.all(Array.from({ length: 50 }, () => rl.check(key)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
  });

  it("puts draft-10 headers on answers and 429s over the limit", async () => {
    const clock = manualClock(45_000);
    const rl = kvLimiter(isolateView(env.RL_KV).binding, { limit: 1, window: 60, clock });
    const run = compose([rl], ok);
    const key = uniqueKey();
    const first = await run(request(key));
    expect(first.headers.get("RateLimit-Policy")).toBe('"default";q=1;w=60');
    expect(first.headers.get("RateLimit")).toBe('"default";r=0;t=15');
    const second = await run(request(key));
    expect(second.status).toBe(429);
    expect(second.headers.get("Retry-After")).toBe("15");
    expect(await second.json()).toMatchObject({ error: "rate_limited", retryAfter: 15 });
  });
});

describe("KVRateLimiter: KV's rules", () => {
  it("reads and writes a key at most once per second from one isolate, with a TTL of at least 60 s", async () => {
    const clock = manualClock();
    const { binding, calls } = isolateView(env.RL_KV);
    const rl = kvLimiter(binding, { limit: 1_000, window: 10, clock });
    const key = uniqueKey();
    for (let i = 0; i < 100; i++) await rl.check(key);
    expect(calls).toMatchObject({ get: 1, put: 1 });
    clock.advance(999);
    for (let i = 0; i < 100; i++) await rl.check(key);
    expect(calls).toMatchObject({ get: 1, put: 1 });
    clock.advance(1);
    await rl.check(key);
    expect(calls).toMatchObject({ get: 2, put: 2 });
    // The second write carries everything admitted since the first.
    expect(calls.puts.map((p) => p.value)).toEqual(["1", "201"]);
    expect(calls.puts.every((p) => (p.ttl ?? 0) >= KV_MIN_TTL_SECONDS)).toBe(true);
    const stored = await env.RL_KV.list({ prefix: calls.puts[0]!.key });
    expect(stored.keys).toHaveLength(1);
    expect(stored.keys[0]!.expiration).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 59);
  });

  it("uses a TTL of the window when the window is longer than 60 s", async () => {
    const { binding, calls } = isolateView(env.RL_KV);
    const rl = kvLimiter(binding, { limit: 5, window: 3_600, clock: manualClock() });
    await rl.check(uniqueKey());
    expect(calls.puts[0]!.ttl).toBe(3_600);
    expect(calls.puts[0]!.key).toMatch(/^kv-\d+-[0-9a-f]{8}3600s:5:\d+:key-/);
  });

  it("isolates share counts through KV once their writes land", async () => {
    const clock = manualClock();
    const prefix = uniqueKey("shared");
    const a = kvLimiter(isolateView(env.RL_KV).binding, { limit: 5, window: 60, clock, prefix });
    const b = kvLimiter(isolateView(env.RL_KV).binding, { limit: 5, window: 60, clock, prefix });
    const key = uniqueKey();
    for (let i = 0; i < 3; i++) expect((await a.check(key)).allowed).toBe(true); // KV holds 1, 2 pending in A
    clock.advance(1_000);
    expect(await a.check(key)).toMatchObject({ allowed: true, remaining: 1 }); // A writes 4
    expect(await b.check(key)).toMatchObject({ allowed: true, remaining: 0 }); // B reads 4
    expect((await b.check(key)).allowed).toBe(false);
  });

  it("over-admits across isolates that have not seen each other's writes (documented bound)", async () => {
    const clock = manualClock();
    const prefix = uniqueKey("over");
    const isolates = [1, 2, 3].map(() =>
      kvLimiter(isolateView(env.RL_KV).binding, { limit: 10, window: 60, clock, prefix }),
    );
    const key = uniqueKey();
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => isolates[i % 3]!.check(key)));
    const admitted = results.filter((r) => r.allowed).length;
    expect(admitted).toBeGreaterThan(10);
    expect(admitted).toBeLessThanOrEqual(10 * isolates.length);
  });

  it("hashes long keys so KV keys stay short", async () => {
    const { binding, calls } = isolateView(env.RL_KV);
    const rl = kvLimiter(binding, { limit: 1, window: 60, clock: manualClock() });
    const long = `203.0.113.1${"x".repeat(8_000)}`;
    expect((await rl.check(long)).allowed).toBe(true);
    expect((await rl.check(long)).allowed).toBe(false);
    expect(calls.puts[0]!.key).toMatch(/:sha256:[0-9a-f]{64}$/);
    expect(new TextEncoder().encode(calls.puts[0]!.key).byteLength).toBeLessThan(512);
  });
});

describe("KVRateLimiter: store failures", () => {
  for (const fail of ["get", "put"] as const) {
    it(`treats a failed ${fail} (a KV 429) as a store error: allow admits, deny answers 503`, async () => {
      for (const onStoreError of ["allow", "deny"] as const) {
        const { logger, entries } = recordingLogger();
        const rl = kvLimiter(failingKV(env.RL_KV, fail), { clock: manualClock(), logger, onStoreError });
        const res = await compose([rl], ok)(request("192.0.2.44"));
        expect(res.status).toBe(onStoreError === "allow" ? 200 : 503);
        expect(res.headers.get("RateLimit")).toBe('"default";r=0;t=10');
        expect(entries).toHaveLength(1);
        expect((entries[0]!.error as RateLimitError).code).toBe("store_error");
        expect(entries[0]!.message).toContain(`kv store failed (store_error); policy ${onStoreError}`);
        expect(entries[0]!.message).not.toContain("192.0.2.44");
      }
    });
  }

  it("remembers a denied key without touching KV again until its window ends", async () => {
    const clock = manualClock();
    const { binding, calls } = isolateView(env.RL_KV);
    const rl = kvLimiter(binding, { limit: 2, window: 60, clock });
    const key = uniqueKey();
    await rl.check(key);
    await rl.check(key);
    expect((await rl.check(key)).source).toBe("store");
    const before = { ...calls };
    for (let i = 0; i < 1_000; i++) {
      clock.advance(10); // ten seconds in all: KV would be read ten times without the memory
      expect((await rl.check(key)).source).toBe("memory");
    }
    expect(calls.get).toBe(before.get);
    expect(calls.put).toBe(before.put);
    clock.advance(50_000);
    expect(await rl.check(key)).toMatchObject({ allowed: true, source: "store" });
  });
});
