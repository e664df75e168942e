import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { uniqueKey } from "./helpers";
import type { CountingRateLimiterDO } from "./worker";

// Each exports.default.fetch is its own request (its own I/O context) in the worker, as
// concurrent requests from different clients are in production. The limiters' in-isolate
// state is shared between them; their I/O must not be.
describe("many concurrent requests, each in its own request context", () => {
  for (const store of ["do", "kv"]) {
    it(`${store}: 60 concurrent requests for one key, limit 20: 20 admitted, none hang or fail`, async () => {
      const prefix = uniqueKey(store);
      const responses = await Promise.all(
        Array.from({ length: 60 }, () =>
          exports.default.fetch(`http://app.test/crowd/${store}`, {
            headers: { "x-prefix": prefix, "CF-Connecting-IP": "203.0.113.200" },
          }),
        ),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 503)).toEqual([]);
      expect(statuses.filter((s) => s === 200)).toHaveLength(20);
      expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    });
  }

  it("do: the requests' checks reach the object in fewer calls than requests, each decided once", async () => {
    const prefix = uniqueKey("counted");
    const responses = await Promise.all(
      Array.from({ length: 60 }, () =>
        exports.default.fetch("http://app.test/crowd/counted", {
          headers: { "x-prefix": prefix, "CF-Connecting-IP": "203.0.113.201" },
        }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    const ns = env.COUNTING_LIMITER;
    const stub = ns.get(ns.idFromName(`crowd-${prefix}:203.0.113.201`));
    const { served, checks } = await runInDurableObject(stub, (o: CountingRateLimiterDO) => ({
      served: o.served,
      checks: o.checks,
    }));
    // Every request asked once; the 40 refused after the first refusal may be answered from memory.
    expect(checks).toBeLessThanOrEqual(60);
    expect(checks).toBeGreaterThanOrEqual(21);
    expect(served).toBeLessThan(checks);
  });
});
