import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { uniqueKey } from "./helpers";

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
});
