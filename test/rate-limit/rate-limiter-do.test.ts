import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { type RateLimiterDO, RateLimiterDO as RateLimiterDOClass } from "gatehouse-workers/durable-objects";
import { describe, expect, it } from "vitest";
import { MAX_CHECK_BODY_BYTES, MAX_KEY_LENGTH, MAX_LIMIT, MAX_WINDOW_SECONDS } from "../../client-sdk/rate-limit";
import { CLOCK_BASE, uniqueKey } from "./helpers";

const stubFor = (key: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(key));

function post(key: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return stubFor(key).fetch("https://limiter/check", {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

describe("RateLimiterDO: POST /check", () => {
  it("counts every key sent to one object on its own (the key is part of the counter)", async () => {
    const object = uniqueKey();
    const [a, b] = [`${object}:a`, `${object}:b`];
    const check = async (key: string) =>
      (await (await post(object, { key, limit: 2, window: 60 })).json()) as {
        allowed: boolean;
      };
    expect((await check(a)).allowed).toBe(true);
    expect((await check(a)).allowed).toBe(true);
    expect((await check(a)).allowed).toBe(false);
    // Another key on the same object still has its whole budget.
    expect((await check(b)).allowed).toBe(true);
    expect((await check(b)).allowed).toBe(true);
    expect((await check(b)).allowed).toBe(false);
  });

  it("works when constructed as the spec does, new RateLimiterDO(state)", async () => {
    const key = uniqueKey();
    const answer = await runInDurableObject(stubFor(key), async (_o: RateLimiterDO, state) => {
      const limiter = new RateLimiterDOClass(state);
      const res = await limiter.fetch(
        new Request("https://limiter/check", { method: "POST", body: JSON.stringify({ key, limit: 1, window: 60 }) }),
      );
      return res.json();
    });
    expect(answer).toEqual({ allowed: true, remaining: 0 });
  });

  it("answers { allowed, remaining } and then { allowed: false, remaining: 0, retryAfter }", async () => {
    const key = uniqueKey();
    const first = await post(key, { key, limit: 2, window: 60 });
    expect(first.status).toBe(200);
    expect(first.headers.get("Content-Type")).toMatch(/application\/json/);
    expect(await first.json()).toEqual({ allowed: true, remaining: 1 });
    expect(await (await post(key, { key, limit: 2, window: 60 })).json()).toEqual({ allowed: true, remaining: 0 });
    const denied = (await (await post(key, { key, limit: 2, window: 60 })).json()) as Record<string, unknown>;
    expect(Object.keys(denied).sort()).toEqual(["allowed", "remaining", "retryAfter"]);
    expect(denied.allowed).toBe(false);
    expect(denied.remaining).toBe(0);
    expect(denied.retryAfter).toBeGreaterThanOrEqual(1);
    expect(denied.retryAfter).toBeLessThanOrEqual(60);
  });

  it("ignores a `now` in the HTTP body (only RPC callers may inject a clock)", async () => {
    const key = uniqueKey();
    await post(key, { key, limit: 1, window: 60, now: CLOCK_BASE });
    const res = await stubFor(key).check({ key, limit: 1, window: 60, now: CLOCK_BASE });
    expect(res.allowed).toBe(true); // the HTTP check counted in today's window, not in 2100's
  });

  const tooLong = "k".repeat(MAX_KEY_LENGTH + 1);
  it.each([
    ["not JSON", "{key:", "invalid_json"],
    ["empty body", "", "invalid_json"],
    ["a JSON array", [], "invalid_body"],
    ["JSON null", "null", "invalid_body"],
    ["a JSON string", '"check"', "invalid_body"],
    ["no key", { limit: 1, window: 60 }, "invalid_key"],
    ["a numeric key", { key: 42, limit: 1, window: 60 }, "invalid_key"],
    ["an empty key", { key: "", limit: 1, window: 60 }, "invalid_key"],
    ["a key that is too long", { key: tooLong, limit: 1, window: 60 }, "invalid_key"],
    ["no limit", { key: "k", window: 60 }, "invalid_limit"],
    ["limit 0", { key: "k", limit: 0, window: 60 }, "invalid_limit"],
    ["a negative limit", { key: "k", limit: -5, window: 60 }, "invalid_limit"],
    ["a fractional limit", { key: "k", limit: 1.5, window: 60 }, "invalid_limit"],
    ["a string limit", { key: "k", limit: "10", window: 60 }, "invalid_limit"],
    ["an absurd limit", { key: "k", limit: MAX_LIMIT + 1, window: 60 }, "invalid_limit"],
    ["an infinite limit", '{"key":"k","limit":1e999,"window":60}', "invalid_limit"],
    ["no window", { key: "k", limit: 1 }, "invalid_window"],
    ["window 0", { key: "k", limit: 1, window: 0 }, "invalid_window"],
    ["a fractional window", { key: "k", limit: 1, window: 0.5 }, "invalid_window"],
    ["an absurd window", { key: "k", limit: 1, window: MAX_WINDOW_SECONDS + 1 }, "invalid_window"],
    [
      "a body over the size limit",
      { key: "k", limit: 1, window: 60, pad: "x".repeat(MAX_CHECK_BODY_BYTES) },
      "body_too_large",
    ],
  ])("answers %s with 400 JSON", async (_label, body, code) => {
    const res = await post(uniqueKey(), body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: string; message: string };
    expect(json.error).toBe(code);
    expect(json.message).toEqual(expect.any(String));
  });

  it.each(["GET", "PUT", "DELETE", "PATCH"])("answers %s /check with 405 JSON and Allow: POST", async (method) => {
    const res = await stubFor(uniqueKey()).fetch("https://limiter/check", {
      method,
      body: method === "GET" ? undefined : "{}",
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("POST");
    expect(await res.json()).toMatchObject({ error: "method_not_allowed" });
  });

  it.each(["/", "/checks", "/check/x", "/reset"])("answers POST %s with 404 JSON", async (path) => {
    const res = await stubFor(uniqueKey()).fetch(`https://limiter${path}`, { method: "POST", body: "{}" });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "not_found" });
  });
});

describe("RateLimiterDO: check (RPC)", () => {
  it("returns resetAt and decides the window from an injected now", async () => {
    const key = uniqueKey();
    const stub = stubFor(key);
    const now = CLOCK_BASE + 12_345;
    expect(await stub.check({ key, limit: 1, window: 10, now })).toEqual({
      allowed: true,
      remaining: 0,
      resetAt: CLOCK_BASE + 20_000,
    });
    expect(await stub.check({ key, limit: 1, window: 10, now: now + 7_654 })).toEqual({
      allowed: false,
      remaining: 0,
      retryAfter: 1,
      resetAt: CLOCK_BASE + 20_000,
    });
    expect(await stub.check({ key, limit: 1, window: 10, now: CLOCK_BASE + 20_000 })).toMatchObject({ allowed: true });
  });

  it("is atomic under concurrent calls from many callers: 200 checks, limit 50, admit 50", async () => {
    const key = uniqueKey();
    const results = await Promise.all(
      Array.from({ length: 200 }, () => stubFor(key).check({ key, limit: 50, window: 60, now: CLOCK_BASE })),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(50);
    const bodies = await Promise.all(
      Array.from({ length: 60 }, async () => (await post(`${key}-http`, { key, limit: 20, window: 60 })).json()),
    );
    expect(bodies.filter((b) => (b as { allowed: boolean }).allowed)).toHaveLength(20);
  });

  it("rejects invalid input", async () => {
    const stub = stubFor(uniqueKey());
    const attempt = async (call: Parameters<RateLimiterDO["check"]>[0]) => {
      try {
        await stub.check(call);
        return "resolved";
      } catch (err) {
        return String(err);
      }
    };
    expect(await attempt({ key: "k", limit: 0, window: 10 })).toMatch(/RangeError: invalid_limit/);
    expect(await attempt({ key: "k", limit: 1, window: 10, now: -1 })).toMatch(/RangeError: invalid_now/);
  });

  it("keeps its counts across eviction", async () => {
    const key = uniqueKey();
    const stub = stubFor(key);
    const call = { key, limit: 3, window: 60, now: CLOCK_BASE };
    await stub.check(call);
    await stub.check(call);
    await evictDurableObject(stub);
    expect(await stubFor(key).check(call)).toMatchObject({ allowed: true, remaining: 0 });
    await evictDurableObject(stubFor(key));
    expect(await stubFor(key).check(call)).toMatchObject({ allowed: false });
  });

  it("sets an alarm for the end of the window; the alarm keeps unfinished windows", async () => {
    const key = uniqueKey();
    const stub = stubFor(key);
    await stub.check({ key, limit: 2, window: 60, now: CLOCK_BASE });
    expect(await runInDurableObject(stub, (_o: RateLimiterDO, state) => state.storage.getAlarm())).toBe(
      CLOCK_BASE + 60_000,
    );
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    // The window ends in 2100: still counted, and the alarm is set again.
    expect(await stub.check({ key, limit: 2, window: 60, now: CLOCK_BASE })).toMatchObject({ remaining: 0 });
    expect(await runInDurableObject(stub, (_o: RateLimiterDO, state) => state.storage.getAlarm())).toBe(
      CLOCK_BASE + 60_000,
    );
  });

  it("the alarm clears finished windows and, when none is left, all storage", async () => {
    const key = uniqueKey();
    const stub = stubFor(key);
    const past = Date.now() - 120_000; // a window that finished a minute ago
    await stub.check({ key, limit: 5, window: 60, now: past });
    await stub.check({ key, limit: 5, window: 3_600, now: CLOCK_BASE });
    const rows = () =>
      runInDurableObject(stub, (_o: RateLimiterDO, state) =>
        state.storage.sql.exec<{ window_ms: number }>("SELECT window_ms FROM rate_counts").toArray(),
      );
    expect((await rows()).length).toBeGreaterThanOrEqual(1);
    // The alarm was due in the past, so workerd may already have run it; run it now if not.
    await runDurableObjectAlarm(stub);
    expect(await rows()).toEqual([{ window_ms: 3_600_000 }]);
    expect(await runInDurableObject(stub, (_o: RateLimiterDO, state) => state.storage.getAlarm())).toBe(
      CLOCK_BASE + 3_600_000,
    );
    // Once the last window is over too, the object keeps nothing at all.
    await runInDurableObject(stub, (_o: RateLimiterDO, state) => {
      state.storage.sql.exec("UPDATE rate_counts SET start_ms = ?", past - 3_600_000);
    });
    await evictDurableObject(stub);
    await runDurableObjectAlarm(stub);
    const tables = await runInDurableObject(stub, (_o: RateLimiterDO, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'rate_counts'").toArray(),
    );
    expect(tables).toEqual([]);
    // And it works again afterwards.
    expect(await stub.check({ key, limit: 5, window: 60, now: CLOCK_BASE })).toMatchObject({ remaining: 4 });
  });
});
