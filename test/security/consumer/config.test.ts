/**
 * Issue 14 finding 8, consumer side: no development login URL ships as the production value, and
 * the consumer fails closed (generic 503, the log names the variable) without a usable one.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import consumer, { type ConsumerEnv } from "../../../workers/example-consumer/worker";

afterEach(() => vi.restoreAllMocks());

async function visit(e: ConsumerEnv, path: string): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await consumer.fetch(new Request(`https://app.example.com${path}`), e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("finding 8: the consumer's login URL", () => {
  it.each([
    ["missing", undefined],
    ["http: off loopback", "http://auth.example.com/auth/login"],
    ["not a URL", "auth.example.com/auth/login"],
  ])("%s: every route answers a generic 503, the log names AUTH_LOGIN_URL", async (_label, url) => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const e = { ...env, AUTH_LOGIN_URL: url } as unknown as ConsumerEnv;
    for (const path of ["/", "/dashboard", "/api/me"]) {
      const res = await visit(e, path);
      expect(res.status).toBe(503);
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(await res.text()).not.toContain("AUTH_LOGIN_URL");
    }
    expect(errors.mock.calls.map((c) => String(c[0])).join("\n")).toContain("AUTH_LOGIN_URL");
  });

  it("an https URL (or http on loopback, for development) serves", async () => {
    for (const url of ["https://auth.example.com/auth/login", "http://127.0.0.1:8787/auth/login"]) {
      const res = await visit({ ...env, AUTH_LOGIN_URL: url } as unknown as ConsumerEnv, "/dashboard");
      expect(res.status).toBe(302);
    }
  });
});
