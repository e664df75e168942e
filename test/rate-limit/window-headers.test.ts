import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  fixedWindow,
  rateLimitHeader,
  rateLimitPolicyHeader,
  retryAfterSeconds,
  validateRateCheck,
} from "../../client-sdk/rate-limit";
import { CLOCK_BASE } from "./helpers";

describe("fixed windows", () => {
  it("align to the epoch and end exclusively", () => {
    expect(fixedWindow(CLOCK_BASE, 60)).toMatchObject({ start: CLOCK_BASE, resetAt: CLOCK_BASE + 60_000 });
    expect(fixedWindow(CLOCK_BASE + 59_999, 60).start).toBe(CLOCK_BASE);
    expect(fixedWindow(CLOCK_BASE + 60_000, 60).start).toBe(CLOCK_BASE + 60_000);
    expect(fixedWindow(CLOCK_BASE + 60_000, 60).index).toBe(fixedWindow(CLOCK_BASE, 60).index + 1);
  });

  it("always contain now (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 45 }), fc.integer({ min: 1, max: 366 * 86_400 }), (now, window) => {
        const w = fixedWindow(now, window);
        expect(w.start).toBeLessThanOrEqual(now);
        expect(now).toBeLessThan(w.resetAt);
        expect(w.resetAt - w.start).toBe(window * 1000);
      }),
    );
  });
});

describe("Retry-After", () => {
  it.each([
    [30_000, 30],
    [30_001, 31],
    [999, 1],
    [1, 1],
    [0, 1],
  ])("is %i ms before the window end → %i s (whole seconds, at least 1)", (left, seconds) => {
    expect(retryAfterSeconds(CLOCK_BASE + 60_000, CLOCK_BASE + 60_000 - left)).toBe(seconds);
  });
});

describe("draft-10 headers", () => {
  it("format RateLimit-Policy and RateLimit", () => {
    const policy = { name: "default", limit: 100, window: 60 };
    expect(rateLimitPolicyHeader(policy)).toBe('"default";q=100;w=60');
    expect(rateLimitHeader(policy, { remaining: 50, resetAt: CLOCK_BASE + 30_000 }, CLOCK_BASE)).toBe(
      '"default";r=50;t=30',
    );
    expect(rateLimitHeader(policy, { remaining: -3, resetAt: CLOCK_BASE }, CLOCK_BASE + 5)).toBe('"default";r=0;t=0');
  });
});

describe("validateRateCheck", () => {
  it("accepts a valid request and drops now unless allowed", () => {
    expect(validateRateCheck({ key: "k", limit: 1, window: 1, now: 5 })).toEqual({
      ok: true,
      value: { key: "k", limit: 1, window: 1 },
    });
    expect(validateRateCheck({ key: "k", limit: 1, window: 1, now: 5 }, { allowNow: true })).toEqual({
      ok: true,
      value: { key: "k", limit: 1, window: 1, now: 5 },
    });
  });

  it("never throws, whatever the input (property)", () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const result = validateRateCheck(input, { allowNow: true });
        expect(typeof result.ok).toBe("boolean");
      }),
    );
  });
});
