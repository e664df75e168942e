/**
 * Issue 29, the pieces of a lease: RateLimiterDO.lease / release (debit at once, credit back once,
 * in the same window only), the isolate's LeaseBook (never a token it was not granted, never after
 * its expiry or outside its window) and the sizing of the next lease.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { DORateLimiter } from "gatehouse-workers/rate-limit";
import { describe, expect, it } from "vitest";
import { LEASE_TTL_MS } from "../../client-sdk/rate-limit";
import {
  HOT_AFTER_CHECKS,
  LEASE_SUSPEND_MS,
  LeaseBook,
  leasable,
  MIN_RESERVE,
  nextReserve,
  reserveCap,
} from "../../client-sdk/rate-limit/lease";
import { manualClock, uniqueKey } from "./helpers";
import type { RateLimiterDO } from "./worker";

const stub = () => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(uniqueKey("lease")));
const at = manualClock(30_000)(); // 30 s into a 60 s window
const policy = { key: "k", limit: 100, window: 60 };

describe("RateLimiterDO.lease", () => {
  it("debits the grant at once: checks see it, and it never goes past the limit", async () => {
    const o = stub();
    const first = await o.lease({ ...policy, now: at, want: 30 });
    expect(first).toMatchObject({ granted: 30, remaining: 70, resetAt: at + 30_000, ttlMs: LEASE_TTL_MS });
    expect(first.leaseId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await o.check({ ...policy, now: at })).toMatchObject({ allowed: true, remaining: 69 });
    expect(await o.lease({ ...policy, now: at, want: 80 })).toMatchObject({
      granted: 69,
      remaining: 0,
      retryAfter: 30,
    });
    const refused = await o.lease({ ...policy, now: at, want: 5 });
    expect(refused).toEqual({ granted: 0, remaining: 0, retryAfter: 30, resetAt: at + 30_000 });
  });

  it("never lasts past its window", async () => {
    const late = at + 25_000; // 5 s before the window ends
    expect(await stub().lease({ ...policy, now: late, want: 1 })).toMatchObject({ ttlMs: 5_000 });
  });

  it("grants exactly the limit to 50 concurrent callers", async () => {
    const o = stub();
    const grants = await Promise.all(Array.from({ length: 50 }, () => o.lease({ ...policy, now: at, want: 7 })));
    expect(grants.reduce((sum, g) => sum + g.granted, 0)).toBe(100);
    expect(await o.check({ ...policy, now: at })).toMatchObject({ allowed: false });
  });

  it.each([
    [{ want: 0 }, /invalid_want/],
    [{ want: 1.5 }, /invalid_want/],
    [{ want: 10_000_001 }, /invalid_want/],
    [{ want: 1, limit: 0 }, /invalid_limit/],
  ])("refuses %j", async (bad, message) => {
    await runInDurableObject(stub(), (o: RateLimiterDO) => {
      expect(() => o.lease({ ...policy, now: at, ...bad } as never)).toThrow(message);
    });
  });
});

describe("RateLimiterDO.release", () => {
  it("credits back what a lease did not use, once: a retried return changes nothing", async () => {
    const o = stub();
    const { leaseId } = await o.lease({ ...policy, now: at, want: 40 });
    const back = await o.release({ ...policy, now: at, leaseId: leaseId!, unused: 15 });
    expect(back).toEqual({ credited: 15, remaining: 75, resetAt: at + 30_000 });
    expect(await o.release({ ...policy, now: at, leaseId: leaseId!, unused: 15 })).toEqual(back);
    expect(await o.release({ ...policy, now: at, leaseId: leaseId!, unused: 40 })).toEqual(back);
    expect(await o.check({ ...policy, now: at })).toMatchObject({ remaining: 74 });
  });

  it("never credits more than the lease granted", async () => {
    const o = stub();
    await o.check({ ...policy, now: at });
    const { leaseId } = await o.lease({ ...policy, now: at, want: 10 });
    expect(await o.release({ ...policy, now: at, leaseId: leaseId!, unused: 500 })).toMatchObject({
      credited: 10,
      remaining: 99,
    });
  });

  it("credits nothing for an unknown lease, another key's or policy's lease, or a finished window", async () => {
    const o = stub();
    const { leaseId } = await o.lease({ ...policy, now: at, want: 10 });
    const id = leaseId!;
    expect(await o.release({ ...policy, now: at, leaseId: "no-such-lease", unused: 5 })).toMatchObject({ credited: 0 });
    expect(await o.release({ ...policy, key: "other", now: at, leaseId: id, unused: 5 })).toMatchObject({
      credited: 0,
    });
    expect(await o.release({ ...policy, limit: 99, now: at, leaseId: id, unused: 5 })).toMatchObject({ credited: 0 });
    // The next window has begun (by the caller's clock): the lease died with its window.
    const next = at + 30_000;
    expect(await o.release({ ...policy, now: next, leaseId: id, unused: 5 })).toEqual({
      credited: 0,
      remaining: 100,
      resetAt: next + 60_000,
    });
    // … and that return was final.
    expect(await o.release({ ...policy, now: at, leaseId: id, unused: 5 })).toMatchObject({ credited: 0 });
    expect(await o.check({ ...policy, now: at })).toMatchObject({ remaining: 89 });
  });

  it.each([
    [{ leaseId: "" }, /invalid_lease_id/],
    [{ leaseId: "x".repeat(65) }, /invalid_lease_id/],
    [{ unused: -1 }, /invalid_unused/],
    [{ unused: 0.5 }, /invalid_unused/],
  ])("refuses %j", async (bad, message) => {
    await runInDurableObject(stub(), (o: RateLimiterDO) => {
      expect(() => o.release({ ...policy, now: at, leaseId: "l", unused: 1, ...bad })).toThrow(message);
    });
  });

  it("the alarm drops the leases of finished windows with their counts", async () => {
    const o = stub();
    const past = Date.UTC(2020, 0, 1, 0, 0, 30); // a window that ended long ago (the alarm uses the object's clock)
    await o.lease({ ...policy, now: past, want: 10 });
    expect(await runDurableObjectAlarm(o)).toBe(true);
    const rows = await runInDurableObject(o, (_: RateLimiterDO, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rate_%'").toArray(),
    );
    expect(rows).toEqual([]); // deleteAll(): nothing left of the key
  });
});

describe("lease sizing", () => {
  it("leases only policies whose reserve can reach the smallest one", () => {
    expect(leasable(MIN_RESERVE * 32 - 1)).toBe(false);
    expect(leasable(MIN_RESERVE * 32)).toBe(true);
    expect(reserveCap(10_000)).toBe(312);
  });

  it("doubles a reserve that ran out, falls to what was used when tokens were left, within its bounds", () => {
    expect(nextReserve(16, { used: 16, left: 0 }, 10_000)).toBe(32);
    expect(nextReserve(256, { used: 256, left: 0 }, 10_000)).toBe(312);
    expect(nextReserve(312, { used: 100, left: 212 }, 10_000)).toBe(100);
    expect(nextReserve(312, { used: 0, left: 312 }, 10_000)).toBe(MIN_RESERVE);
  });
});

describe("LeaseBook", () => {
  const lease = (over: Partial<Parameters<LeaseBook["hold"]>[2]> = {}) => ({
    id: "l1",
    left: 3,
    reserved: 3,
    from: 0,
    until: 1_000,
    resetAt: 60_000,
    remaining: 10,
    ...over,
  });

  it("hands out each held token once, with the object's remaining plus what is still held", () => {
    const book = new LeaseBook(10_000);
    book.hold("k", 0, lease());
    expect(book.take("k", 10, 5).map((r) => r.remaining)).toEqual([12, 11, 10]);
    expect(book.take("k", 10)).toEqual([]);
    // Ran out before it expired: the next reserve doubles.
    expect(book.reserve("k")).toBe(MIN_RESERVE * 2);
  });

  it("never after the lease's expiry: what is left is due back, and only in its window", () => {
    const book = new LeaseBook(10_000);
    book.hold("k", 0, lease({ id: "a", left: 20, reserved: 20 }));
    expect(book.take("k", 1_000)).toEqual([]);
    expect(book.returnsDue("k")).toEqual([{ id: "a", unused: 20 }]);
    book.returned("k", "a");
    expect(book.returnsDue("k")).toEqual([]);
    // Past the window end nothing is due back: the object forgot that window.
    book.hold("k", 0, lease({ id: "b", until: 120_000 }));
    expect(book.take("k", 60_000)).toEqual([]);
    expect(book.returnsDue("k")).toEqual([]);
  });

  it("never before the lease's window starts", () => {
    const book = new LeaseBook(10_000);
    book.hold("k", 1, lease({ from: 60_000, until: 70_000, resetAt: 120_000 }));
    expect(book.take("k", 59_999)).toEqual([]);
    expect(book.take("k", 60_000)).toHaveLength(1);
  });

  it(`is hot after ${HOT_AFTER_CHECKS} checks sent in a window, and cools down with the window or an unused lease`, () => {
    const book = new LeaseBook(10_000);
    book.sent("k", 0, HOT_AFTER_CHECKS - 1);
    expect(book.isHot("k", 0)).toBe(false);
    book.sent("k", 0, 1);
    expect(book.isHot("k", 0)).toBe(true);
    expect(book.isHot("k", 1)).toBe(false);
    book.sent("k", 1, HOT_AFTER_CHECKS);
    book.hold("k", 1, lease({ left: 20, reserved: 20, until: 1_000 }));
    expect(book.take("k", 10)).toHaveLength(1);
    expect(book.take("k", 1_000)).toEqual([]); // expired with 19 left, 1 used: cooled down
    expect(book.isHot("k", 1)).toBe(false);
  });

  it(`tracks at most its bound of keys, the stalest first`, () => {
    const book = new LeaseBook(10_000, 3);
    for (const key of ["a", "b", "c", "d"]) book.sent(key, 0, HOT_AFTER_CHECKS);
    expect(book.size).toBe(3);
    expect(book.isHot("a", 0)).toBe(false);
    expect(book.isHot("d", 0)).toBe(true);
  });

  it("a key admitting from its lease is not the stalest: a spray of new keys does not drop it", () => {
    const book = new LeaseBook(10_000, 3);
    book.sent("hot", 0, HOT_AFTER_CHECKS);
    book.hold("hot", 0, lease({ left: 20, reserved: 20 }));
    book.sent("x", 0, 1);
    book.sent("y", 0, 1);
    expect(book.take("hot", 10)).toHaveLength(1); // in use: now the most recent
    book.sent("z", 0, 1); // evicts the stalest, x
    expect(book.take("hot", 10)).toHaveLength(1);
    expect(book.isHot("x", 0)).toBe(false);
  });
});

describe("leasing against an object without lease and release (its old code, during a deploy)", () => {
  // Cloudflare keeps a running object's old code for a while after a deploy, and for a whole gradual
  // deployment (developers.cloudflare.com/durable-objects/deployments/durable-objects-code-updates/).
  const oldObjects = (calls: string[]) => ({
    raw: {},
    get(name: string) {
      const real = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name));
      const missing = (method: string) => () => {
        calls.push(method);
        return Promise.reject(new TypeError(`The RPC receiver does not implement the method "${method}".`));
      };
      return {
        check: (c: never) => real.check(c),
        checkBatch: (c: never) => real.checkBatch(c),
        lease: missing("lease"),
        release: missing("release"),
      };
    },
  });

  it("admits exactly the limit, one batch at a time, and tries leasing again only after a pause", async () => {
    const calls: string[] = [];
    const clock = manualClock(1_000);
    const logged: string[] = [];
    const limiter = new DORateLimiter(oldObjects(calls), {
      limit: 512,
      window: 60,
      prefix: uniqueKey("old-object"),
      clock,
      logger: (message) => logged.push(message),
    });
    let allowed = 0;
    const sources = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const decision = await limiter.check("203.0.113.9");
      if (decision.allowed) allowed++;
      sources.add(decision.source);
    }
    expect(allowed).toBe(512);
    expect(sources.has("store_error")).toBe(false);
    // One failed lease paused leasing; no other lease was tried while paused.
    expect(calls).toEqual(["lease"]);
    expect(logged).toHaveLength(1);
    clock.advance(LEASE_SUSPEND_MS);
    // A new window, past the pause: the key is hot again after its checks, and one lease is tried.
    for (let i = 0; i < 2 * HOT_AFTER_CHECKS; i++) expect((await limiter.check("203.0.113.9")).allowed).toBe(true);
    expect(calls).toEqual(["lease", "lease"]);
  });
});
