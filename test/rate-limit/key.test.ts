import { env } from "cloudflare:workers";
import fc from "fast-check";
import { defaultKeyExtractor, fakeRateLimiter, KVRateLimiter, KVStore, restoreRateLimiter } from "gatehouse";
import { afterEach, describe, expect, it } from "vitest";

const req = (headers: Record<string, string>) => new Request("https://app.test/", { headers });

afterEach(() => restoreRateLimiter());

describe("default key extraction", () => {
  it("prefers CF-Connecting-IP, the address Cloudflare's edge sets", () => {
    expect(defaultKeyExtractor(req({ "CF-Connecting-IP": "203.0.113.1", "X-Forwarded-For": "198.51.100.2" }))).toBe(
      "203.0.113.1",
    );
  });

  it("falls back to the first X-Forwarded-For address, trimmed", () => {
    expect(defaultKeyExtractor(req({ "X-Forwarded-For": " 198.51.100.2 , 10.0.0.1, 10.0.0.2" }))).toBe("198.51.100.2");
    expect(defaultKeyExtractor(req({ "X-Forwarded-For": "2001:db8::1" }))).toBe("2001:db8::1");
  });

  it("skips empty headers", () => {
    expect(defaultKeyExtractor(req({ "CF-Connecting-IP": "  ", "X-Forwarded-For": "198.51.100.2" }))).toBe(
      "198.51.100.2",
    );
    expect(defaultKeyExtractor(req({ "X-Forwarded-For": " , 10.0.0.1" }))).toBe("unknown");
  });

  it("answers unknown without either header", () => {
    expect(defaultKeyExtractor(req({}))).toBe("unknown");
  });

  it("does not trust a client-sent Edge-Connecting-IP (the spec's neutral name, not a real header)", () => {
    expect(defaultKeyExtractor(req({ "Edge-Connecting-IP": "1.1.1.1", "X-Forwarded-For": "198.51.100.2" }))).toBe(
      "198.51.100.2",
    );
  });

  it("always takes the first X-Forwarded-For entry (property)", () => {
    const address = fc.oneof(fc.ipV4(), fc.ipV6());
    fc.assert(
      fc.property(address, fc.array(address, { maxLength: 5 }), fc.constantFrom("", " ", "  "), (first, rest, pad) => {
        const header = [first, ...rest].map((a) => `${pad}${a}${pad}`).join(",");
        expect(defaultKeyExtractor(req({ "X-Forwarded-For": header }))).toBe(first);
      }),
    );
  });
});

describe("keyExtractor", () => {
  it("overrides the default key in handle", async () => {
    const fake = fakeRateLimiter();
    const limiter = new KVRateLimiter(new KVStore(env.RL_KV), {
      limit: 1,
      window: 60,
      keyExtractor: (request) => `api-key:${request.headers.get("x-api-key")}`,
    });
    await limiter.handle(
      req({ "x-api-key": "abc", "CF-Connecting-IP": "203.0.113.1" }),
      async () => new Response("ok"),
    );
    fake.assertChecked("api-key:abc");
    expect(() => fake.assertChecked("203.0.113.1")).toThrow();
  });

  it("uses unknown when the extractor returns an empty string", async () => {
    const fake = fakeRateLimiter();
    const limiter = new KVRateLimiter(new KVStore(env.RL_KV), { limit: 1, window: 60, keyExtractor: () => "" });
    await limiter.handle(req({}), async () => new Response("ok"));
    fake.assertChecked("unknown");
  });
});
