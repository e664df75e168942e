/**
 * Every row of README's "Consuming Gatehouse" error table, reached for real: the example consumer
 * (the main worker) in front of the real auth worker, or of a failing one (issue 15: one honest
 * contract). Each row: the code, its status, and what the consumer answers.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { AuthServiceClient, AuthServiceError } from "gatehouse-workers/client";
import { fakeRateLimiter, restoreRateLimiter } from "gatehouse-workers/testing";
import { describe, expect, it } from "vitest";
import { toAuthServiceError } from "../../client-sdk/auth-service";
import consumer, { type ConsumerEnv } from "../../workers/example-consumer/worker";
import { APP, people, signIn, visit, visitWith } from "./helpers";

async function code(promise: Promise<unknown>): Promise<{ code: string; status: number }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AuthServiceError)) throw new Error(`expected an AuthServiceError, got ${String(err)}`);
  return { code: err.code, status: err.status };
}

describe("README's consumer error table, row by row", () => {
  it("invalid_argument 400: the entrypoint refused an argument", async () => {
    expect(await code(new AuthServiceClient(env.AUTH).listSessions("not a user id"))).toEqual({
      code: "invalid_argument",
      status: 400,
    });
  });

  it.each([
    ["the auth worker cannot be reached", "AUTH_DOWN"],
    ["its session store is down", "AUTH_STORE_DOWN"],
    ["it refuses its configuration", "AUTH_MISCONFIGURED"],
  ] as const)("auth_service_unavailable 503: %s", async (_label, binding) => {
    const { cookie } = await signIn(people.ada());
    const res = await visitWith(binding, "/api/me", { cookie });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: "auth_service_unavailable" });
  });

  it("auth_service_unavailable 503: under wrangler dev, the auth worker is not running", () => {
    // What wrangler dev's service registry throws (marked remote) when the bound worker is not up.
    const notRunning = Object.assign(new Error('Worker "gatehouse-auth" not found. Make sure it is running locally.'), {
      remote: true,
    });
    expect(toAuthServiceError("resolveSession", notRunning)).toMatchObject({
      code: "auth_service_unavailable",
      status: 503,
    });
    // The same words from the auth worker's own code, with a status, keep their meaning.
    const own = Object.assign(new Error('Worker "x" not found. Make sure it is running locally.'), {
      remote: true,
      status: 500,
    });
    expect(toAuthServiceError("resolveSession", own).code).toBe("auth_service_error");
  });

  it("auth_service_error 502: the auth worker threw", async () => {
    const { cookie } = await signIn(people.ada());
    const res = await visitWith("AUTH_BROKEN", "/api/me", { cookie });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: "auth_service_error" });
  });

  it("auth_service_timeout 504: no answer within timeoutMs", async () => {
    expect(await code(new AuthServiceClient(env.AUTH_SLOW, { timeoutMs: 50 }).resolveSession("a=b"))).toEqual({
      code: "auth_service_timeout",
      status: 504,
    });
  });

  it("auth_service_unsupported / auth_service_bad_response 502: another entrypoint behind the binding", async () => {
    const other = new AuthServiceClient(env.AUTH_OTHER_SHAPE as never);
    expect(await code(other.resolveSession("a=b"))).toEqual({ code: "auth_service_bad_response", status: 502 });
    expect(await code(other.revokeUser("user_x"))).toEqual({ code: "auth_service_unsupported", status: 502 });
  });

  // The example consumer's own answers (browsers get a page for each: test/consumer/dead-ends.test.ts).
  it("forbidden 403: not a member of the path's organization, or without the role (RoleMiddleware)", async () => {
    const { cookie } = await signIn(people.alan());
    for (const path of ["/org/globex/dashboard", "/org/acme/admin"]) {
      const res = await visit(path, { cookie, accept: "application/json" });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: "forbidden" });
    }
  });

  it("not_found 404: no such route, or an organization slug it cannot take", async () => {
    const { cookie } = await signIn(people.alan());
    for (const path of ["/no/such/page", "/org/Not_A_Slug/dashboard"]) {
      const res = await visit(path, { cookie, accept: "application/json" });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: "not_found" });
    }
  });

  it("rate_limited 429: /api/quota past the user's quota, with Retry-After", async () => {
    const heavy = people.ada();
    const { cookie } = await signIn(heavy);
    fakeRateLimiter().limitKey(heavy.id);
    try {
      const res = await visit("/api/quota", { cookie, accept: "application/json" });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toMatchObject({ error: "rate_limited" });
    } finally {
      restoreRateLimiter();
    }
  });

  it("service_unavailable 503: the consumer's own configuration is refused (AUTH_LOGIN_URL)", async () => {
    const e = { ...env, AUTH_LOGIN_URL: "http://auth.example.com/auth/login" } as unknown as ConsumerEnv;
    const ctx = createExecutionContext();
    const res = await consumer.fetch(new Request(`${APP}/api/me`, { headers: { Accept: "application/json" } }), e, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: "service_unavailable", message: "This service is not available." });
  });

  it("auth_service_not_bound 500: no binding given (env.AUTH missing)", async () => {
    expect(await code(Promise.resolve().then(() => new AuthServiceClient(undefined as never)))).toEqual({
      code: "auth_service_not_bound",
      status: 500,
    });
    const e = { ...env, AUTH: undefined } as unknown as ConsumerEnv;
    const ctx = createExecutionContext();
    const res = await consumer.fetch(
      new Request(`${APP}/api/me`, { headers: { Cookie: "gh_session=x", Accept: "application/json" } }),
      e,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: "auth_service_not_bound", message: "Internal Server Error" });
  });
});
