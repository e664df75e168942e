/**
 * Issue 14 finding 7: one person must not escape the auth routes' limits by rotating addresses.
 * An IPv6 client owns a whole /64, so addresses of one /64 share a bucket; and the auth worker's
 * own limits read `CF-Connecting-IP` only, so a rotating `X-Forwarded-For` changes nothing.
 * Replayed against the login route (20 per minute per client) of the deployed worker.
 */
import { describe, expect, it } from "vitest";
import { send } from "./helpers/world";

const LOGIN_LIMIT = 20;

let net = 0;
/** A fresh /64 per test: `2001:db8:<n>:<n>::/64`. */
function freshPrefix(): string {
  net++;
  return `2001:db8:${(0x1000 + net).toString(16)}:${(Date.now() % 0xffff).toString(16)}`;
}

async function login(headers: Record<string, string>): Promise<number> {
  return (await send("/auth/login", { headers })).status;
}

describe("finding 7: rate-limit identity on the auth routes", () => {
  it("counts every address of one IPv6 /64 against one bucket", async () => {
    const prefix = freshPrefix();
    for (let i = 1; i <= LOGIN_LIMIT; i++) {
      expect(await login({ "CF-Connecting-IP": `${prefix}:${i.toString(16)}:0:0:${i.toString(16)}` })).toBe(302);
    }
    // A new address in the same /64 is still the same client.
    expect(await login({ "CF-Connecting-IP": `${prefix}::beef` })).toBe(429);
    // Another /64 is another client.
    expect(await login({ "CF-Connecting-IP": `${freshPrefix()}::1` })).toBe(302);
  });

  it("ignores X-Forwarded-For: rotating it does not escape the limit", async () => {
    const address = `${freshPrefix()}::1`;
    for (let i = 1; i <= LOGIN_LIMIT; i++) {
      expect(await login({ "CF-Connecting-IP": address, "X-Forwarded-For": `203.0.113.${i}` })).toBe(302);
    }
    expect(await login({ "CF-Connecting-IP": address, "X-Forwarded-For": "198.51.100.99" })).toBe(429);
  });

  it("counts requests without CF-Connecting-IP together, whatever X-Forwarded-For says", async () => {
    // Off Cloudflare (or a misrouted request) the client writes X-Forwarded-For itself.
    for (let i = 1; i <= LOGIN_LIMIT; i++) {
      expect(await login({ "CF-Connecting-IP": "", "X-Forwarded-For": `192.0.2.${i}` })).toBe(302);
    }
    expect(await login({ "CF-Connecting-IP": "", "X-Forwarded-For": "192.0.2.200" })).toBe(429);
  });
});
