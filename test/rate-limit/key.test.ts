import { env } from "cloudflare:workers";
import fc from "fast-check";
import { KVStore } from "gatehouse-workers/bindings";
import { defaultKeyExtractor, edgeAddressKeyExtractor, KVRateLimiter } from "gatehouse-workers/rate-limit";
import { fakeRateLimiter, restoreRateLimiter } from "gatehouse-workers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { addressKey } from "../../client-sdk/rate-limit";

const req = (headers: Record<string, string>) => new Request("https://app.test/", { headers });

afterEach(() => restoreRateLimiter());

describe("client addresses: an IPv6 client counts by its /64", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:DB8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"],
    ["2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002:0000:0000:0000:0009", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8::/64"],
    ["[2001:db8:1:2::1]", "2001:db8:1:2::/64"],
    ["fe80::1%eth0", "fe80::/64"],
    ["::1", "::/64"],
    ["::ffff:198.51.100.4", "198.51.100.4"],
    ["64:ff9b::198.51.100.4", "64:ff9b::/64"],
    ["not-an-address", "not-an-address"],
    ["1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8:9"],
  ])("%s → %s", (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it("puts two addresses of one /64 in one bucket and another /64 in another", () => {
    const a = defaultKeyExtractor(req({ "CF-Connecting-IP": "2001:db8:aa:bb::1" }));
    const b = defaultKeyExtractor(req({ "CF-Connecting-IP": "2001:db8:aa:bb:dead:beef:0:2" }));
    const c = defaultKeyExtractor(req({ "CF-Connecting-IP": "2001:db8:aa:bc::1" }));
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it("edgeAddressKeyExtractor reads CF-Connecting-IP only, never X-Forwarded-For", () => {
    expect(edgeAddressKeyExtractor(req({ "X-Forwarded-For": "198.51.100.2" }))).toBe("unknown");
    expect(edgeAddressKeyExtractor(req({ "CF-Connecting-IP": "2001:db8:1:2::9", "X-Forwarded-For": "1.1.1.1" }))).toBe(
      "2001:db8:1:2::/64",
    );
  });
});

describe("default key extraction", () => {
  it("keys every IPv6 address by a /64 and leaves every IPv4 address as is (property)", () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        expect(addressKey(address)).toMatch(/^(([0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4}|)::\/64$|^\d+\.\d+\.\d+\.\d+$/);
      }),
    );
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        expect(addressKey(address)).toBe(address);
      }),
    );
  });

  it("prefers CF-Connecting-IP, the address Cloudflare's edge sets", () => {
    expect(defaultKeyExtractor(req({ "CF-Connecting-IP": "203.0.113.1", "X-Forwarded-For": "198.51.100.2" }))).toBe(
      "203.0.113.1",
    );
  });

  it("falls back to the first X-Forwarded-For address, trimmed", () => {
    expect(defaultKeyExtractor(req({ "X-Forwarded-For": " 198.51.100.2 , 10.0.0.1, 10.0.0.2" }))).toBe("198.51.100.2");
    expect(defaultKeyExtractor(req({ "X-Forwarded-For": "2001:db8::1" }))).toBe("2001:db8::/64");
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
        expect(defaultKeyExtractor(req({ "X-Forwarded-For": header }))).toBe(addressKey(first));
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
