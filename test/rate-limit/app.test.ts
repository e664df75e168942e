import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { uniqueKey } from "./helpers";

describe("limiters mounted in an Application (fixture worker)", () => {
  for (const store of ["do", "kv"]) {
    it(`${store}: admits 2, then 429 with Retry-After 30 and JSON; headers on every answer`, async () => {
      const client = uniqueKey(store);
      const get = () => exports.default.fetch(`http://app.test/${store}/hello`, { headers: { "x-client": client } });
      for (const remaining of [1, 0]) {
        const res = await get();
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ hello: store });
        expect(res.headers.get("RateLimit-Policy")).toBe('"default";q=2;w=60');
        expect(res.headers.get("RateLimit")).toBe(`"default";r=${remaining};t=30`);
      }
      const limited = await get();
      expect(limited.status).toBe(429);
      expect(limited.headers.get("Retry-After")).toBe("30");
      expect(limited.headers.get("RateLimit")).toBe('"default";r=0;t=30');
      expect(await limited.json()).toMatchObject({ error: "rate_limited", retryAfter: 30 });
      const other = await exports.default.fetch(`http://app.test/${store}/hello`, {
        headers: { "x-client": uniqueKey(store) },
      });
      expect(other.status).toBe(200);
    });
  }

  it("leaves routes without a limiter alone", async () => {
    const res = await exports.default.fetch("http://app.test/free");
    expect(res.status).toBe(200);
    expect(res.headers.get("RateLimit")).toBeNull();
  });
});
