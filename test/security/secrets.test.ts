/**
 * Issue 14 finding 6: weak and placeholder secrets, and an http: redirect URL off loopback, are
 * refused. The deployed worker fails closed: every request answers a generic 503 (no variable
 * named), every RPC call is refused with a 503 error, and the log names the variable and the rule.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkAuthEnvironment } from "../../workers/auth/config";
import { AuthService } from "../../workers/auth/worker";
import { live, type WorkerEnv } from "./helpers/world";
import worker from "./worker";

const STRONG = "Zq8v1mB3xK0pR7sT2wY5uN9cE4hJ6gLd";

async function fetchWith(e: WorkerEnv, path = "/health", accept = "application/json"): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`https://auth.example.com${path}`, { headers: { Accept: accept } }) as Parameters<
      typeof worker.fetch
    >[0],
    e,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

afterEach(() => vi.restoreAllMocks());

const WEAK: [string, string, string][] = [
  ["ADMIN_API_TOKEN", "x", "too_short"],
  ["ADMIN_API_TOKEN", "one-character-is-too-short", "at least 32 characters"],
  ["IDENTITY_WEBHOOK_SECRET", "x", "at least 32 characters"],
  ["SESSION_SECRET", "__RANDOM__", "placeholder"],
  ["SESSION_SECRET", "changeme", "placeholder"],
  ["SESSION_SECRET", "changeme-changeme-changeme-changeme", "placeholder"],
  ["SESSION_SECRET", "0123456789abcdef", "at least 32 characters"],
  ["SESSION_SECRET", "a".repeat(64), "distinct characters"],
  ["SESSION_SECRET_PREVIOUS", "<your secret here>", "placeholder"],
  ["SESSION_SECRET", "", "is required"],
  ["AUTH_REDIRECT_URL", "http://auth.example.com/auth/callback", "http: on a host that is not loopback"],
  ["AUTH_REDIRECT_URL", "http://10.0.0.5:8787/auth/callback", "http: on a host that is not loopback"],
  ["AUTH_REDIRECT_URL", "not a url", "is not a URL"],
  ["SECURITY_EVENTS_WEBHOOK_SECRET", "short-secret", "at least 32 characters"],
  ["SECURITY_EVENTS_WEBHOOK_URL", "https://siem.example.com/gatehouse", "without SECURITY_EVENTS_WEBHOOK_SECRET"],
  ["SECURITY_EVENTS_WEBHOOK_URL", "ftp://siem.example.com/gatehouse", "is not a URL"],
  ["ADMIN_API_TOKENS", "ops:short-token", "at least 32 characters"],
  ["ADMIN_API_TOKENS", "ops token without a label", "label:token pairs"],
  [
    "ADMIN_API_TOKENS",
    "ops:Zq8v1mB3xK0pR7sT2wY5uN9cE4hJ6gLd,sre:Zq8v1mB3xK0pR7sT2wY5uN9cE4hJ6gLd",
    "each label and token once",
  ],
  ["ADMIN_API_TOKENS", "admin:Zq8v1mB3xK0pR7sT2wY5uN9cE4hJ6gLd", "ADMIN_API_TOKEN's"],
  ["GATEHOUSE_DEV_LOCATION_HEADER", "1", "local development only"],
];

describe("finding 6: the worker refuses weak configuration and fails closed", () => {
  it.each(WEAK)("%s=%j: generic 503 on every route, the log names the variable", async (variable, value, rule) => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const e = { ...live, [variable]: value } as WorkerEnv;
    for (const [path, accept] of [
      ["/health", "application/json"],
      ["/auth/login", "text/html"],
      ["/account/sessions", "text/html"],
      ["/api/me", "application/json"],
    ] as const) {
      const res = await fetchWith(e, path, accept);
      expect(res.status).toBe(503);
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      const body = await res.text();
      expect(body).toContain("service_unavailable");
      expect(body).not.toContain(variable);
      if (value.length > 3) expect(body).not.toContain(value);
    }
    const logged = errors.mock.calls.map((c) => String(c[0])).join("\n");
    expect(logged).toContain(variable);
    expect(logged).toContain(rule === "too_short" ? "at least 32 characters" : rule);
    if (value.length > 3) expect(logged).not.toContain(value);
  });

  it("checks once per env object (one log line, not one per request)", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const e = { ...live, ADMIN_API_TOKEN: "short" } as WorkerEnv;
    for (let i = 0; i < 5; i++) expect((await fetchWith(e)).status).toBe(503);
    expect(errors.mock.calls.filter((c) => String(c[0]).includes("ADMIN_API_TOKEN"))).toHaveLength(1);
  });

  it("refuses the AuthService RPC entrypoint too (503, so consumers answer auth_service_unavailable)", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const e = { ...live, SESSION_SECRET: "short" } as WorkerEnv;
    const service = new AuthService(createExecutionContext(), e);
    const err = await service.resolveSession("gh_session=x").catch((error: unknown) => error);
    expect(err).toMatchObject({ status: 503, code: "service_unavailable" });
    expect(String((err as Error).message)).not.toContain("SESSION_SECRET");
    await expect(service.checkRateLimit("k", 1, 60)).rejects.toMatchObject({ status: 503 });
  });

  it.each([
    "http://127.0.0.1:8787/auth/callback",
    "http://localhost:8787/auth/callback",
    "http://[::1]:8787/auth/callback",
    "https://auth.example.com/auth/callback",
  ])("accepts a strong configuration with AUTH_REDIRECT_URL=%s", async (url) => {
    const e = { ...live, AUTH_REDIRECT_URL: url, ADMIN_API_TOKEN: STRONG } as WorkerEnv;
    const res = await fetchWith(e);
    expect(res.status).toBe(200);
    expect(checkAuthEnvironment(e as unknown as Record<string, unknown>)).toEqual({ ok: true });
  });
});
