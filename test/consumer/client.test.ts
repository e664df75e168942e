import { env } from "cloudflare:workers";
import { type AuthServiceBinding, AuthServiceClient, AuthServiceError } from "gatehouse-workers/client";
import { describe, expect, it } from "vitest";
import { releaseRpcResult } from "../../client-sdk/core/rpc";
import { APP, people, signIn } from "./helpers";

async function failure(promise: Promise<unknown>): Promise<AuthServiceError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AuthServiceError)) throw new Error(`expected an AuthServiceError, got ${String(err)}`);
  return err;
}

describe("AuthServiceClient against the auth worker's AuthService", () => {
  it("sends a Request's Secure-Session-Skipped along to the real entrypoint (device binding), and only then", async () => {
    const ada = people.ada();
    const { sessionId, cookie } = await signIn(ada);
    // The real binding, with each resolve's arguments written down on the way through.
    const calls: unknown[][] = [];
    const binding = new Proxy(env.AUTH, {
      get(target, property) {
        const value = Reflect.get(target, property) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (property === "resolveSession" || property === "resolveUser") calls.push(args);
          // Reflect.apply, not value.apply: an RPC stub takes any property name as a remote method.
          return Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
        };
      },
    }) as AuthServiceBinding;
    const auth = new AuthServiceClient(binding);
    const skipped = `unreachable;session_identifier="${sessionId}"`;
    const request = new Request(APP, { headers: { Cookie: cookie, "Secure-Session-Skipped": skipped } });
    expect((await auth.resolveSession(request))?.sessionId).toBe(sessionId);
    expect((await auth.resolveUser(new Request(APP, { headers: { Cookie: cookie } })))?.id).toBe(ada.id);
    expect(await auth.resolveUser(cookie)).toMatchObject({ id: ada.id });
    expect(calls).toEqual([[cookie, { deviceSkipped: skipped }], [cookie], [cookie]]);
  });

  it("resolves a user and a session from a Request or a Cookie header", async () => {
    const ada = people.ada();
    const { sessionId, cookie } = await signIn(ada);
    const auth = new AuthServiceClient(env.AUTH);
    const fromRequest = await auth.resolveUser(new Request(APP, { headers: { Cookie: `theme=dark; ${cookie}` } }));
    expect(fromRequest).toMatchObject({ id: ada.id, email: ada.email, organizationId: "org_acme" });
    const session = await auth.resolveSession(cookie);
    expect(session?.sessionId).toBe(sessionId);
    expect(session?.user.memberships).toEqual(ada.memberships);
    expect(session?.expiresAt).toBeGreaterThan(Date.now());
    expect(await auth.resolveUser(new Request(APP))).toBeNull();
    expect(await auth.resolveSession(null)).toBeNull();
    expect(await auth.resolveSession("__Host-gh_session=forged")).toBeNull();
  });

  it("lists and revokes sessions, mirroring the entrypoint", async () => {
    const alan = people.alan();
    const a = await signIn(alan);
    const b = await signIn(alan);
    const auth = new AuthServiceClient(env.AUTH);
    expect((await auth.listSessions(alan.id)).map((s) => s.id).sort()).toEqual([a.sessionId, b.sessionId].sort());
    expect(await auth.revokeSession(a.sessionId)).toMatchObject({ revoked: 1 });
    expect(await auth.revokeSession(a.sessionId)).toBeNull();
    expect(await auth.resolveUser(a.cookie)).toBeNull();
    expect(await auth.revokeUser(alan.id)).toMatchObject({ revoked: 1 });
    expect(await auth.resolveUser(b.cookie)).toBeNull();
  });

  it("reads the security record and runs an organization's controls over RPC (issue 17)", async () => {
    // An organization of its own: its kill switch ends no other test's sessions.
    const org = `org_rpc_${Date.now().toString(36)}`;
    const grace = { ...people.grace(), memberships: [{ organizationId: org, organizationSlug: "rpc", role: "admin" }] };
    const auth = new AuthServiceClient(env.AUTH);
    const a = await signIn(grace, org);
    const page = await auth.timeline(grace.id, { limit: 10 });
    expect(page.events.map((e) => e.type)).toContain("session.signed_in");
    expect(page.events.every((e) => e.userId === grace.id)).toBe(true);
    expect((await auth.devices(grace.id)).length).toBeGreaterThan(0);

    const revoked = await auth.revokeSession(a.sessionId, { kind: "admin", label: "support" });
    expect(revoked?.receiptId).toMatch(/^rcpt\.u\./);
    expect(await auth.receipt(revoked!.receiptId!)).toMatchObject({
      revoked: 1,
      actor: { kind: "admin", label: "support" },
    });
    expect(await auth.receipt(`rcpt.u.${grace.id}.999999`)).toBeNull();

    await auth.setOrganizationPolicy(org, { maxSessions: 3, onLimit: "refuse-new" });
    expect(await auth.organizationPolicy(org)).toEqual({
      policy: { maxSessions: 3, onLimit: "refuse-new" },
      source: "operator",
    });
    await auth.setOrganizationPolicy(org, null);
    expect((await auth.organizationPolicy(org)).source).not.toBe("operator");

    const b = await signIn(grace, org);
    const receipt = await auth.endOrganizationSessions(org, "consumer-admin");
    expect(receipt).toMatchObject({ actor: { kind: "kill_switch", label: "consumer-admin" } });
    expect(receipt.revoked).toBeGreaterThanOrEqual(1);
    expect(await auth.resolveUser(b.cookie)).toBeNull();
    await auth.liftOrganizationSessions(org);

    expect(await failure(auth.timeline(grace.id, { limit: 0 }))).toMatchObject({ code: "invalid_argument" });
    expect(await failure(auth.receipt("nope"))).toMatchObject({ code: "invalid_argument" });
  });

  it("maps the entrypoint's argument validation (TypeError) to invalid_argument 400", async () => {
    const auth = new AuthServiceClient(env.AUTH);
    const bad = await failure(auth.revokeSession("nope"));
    expect(bad).toMatchObject({ code: "invalid_argument", status: 400, method: "revokeSession", retryable: false });
    expect(bad.message).toMatch(/64 lowercase hex/);
    expect(await failure(auth.listSessions("bad id"))).toMatchObject({ code: "invalid_argument", status: 400 });
    // Refused before any call: not a string.
    const local = await failure(auth.revokeUser(42 as unknown as string));
    expect(local).toMatchObject({ code: "invalid_argument", message: "userId must be a non-empty string" });
    expect(await failure(auth.resolveUser({} as unknown as string))).toMatchObject({ code: "invalid_argument" });
  });

  it("reports an unreachable auth worker as auth_service_unavailable 503, retryable", async () => {
    const err = await failure(new AuthServiceClient(env.AUTH_DOWN).resolveSession("a=b"));
    expect(err).toMatchObject({ code: "auth_service_unavailable", status: 503, retryable: true });
    expect(err.cause).toBeInstanceOf(Error);
  });

  it("reports an exception in the auth worker as auth_service_error 502, keeping it only as the cause", async () => {
    const err = await failure(new AuthServiceClient(env.AUTH_BROKEN).listSessions("user_x"));
    expect(err).toMatchObject({ code: "auth_service_error", status: 502, retryable: false, method: "listSessions" });
    expect(err.message).not.toContain("SESSION_SECRET");
    expect((err.cause as Error).message).toContain("SESSION_SECRET");
  });

  it("reports a misconfigured auth worker (refused configuration) as auth_service_unavailable 503", async () => {
    const err = await failure(new AuthServiceClient(env.AUTH_MISCONFIGURED).listSessions("user_x"));
    expect(err).toMatchObject({ code: "auth_service_unavailable", status: 503, method: "listSessions" });
    expect(err.message).not.toContain("SESSION_SECRET");
  });

  it("reports the auth worker's own 503 (store down) as auth_service_unavailable", async () => {
    const err = await failure(new AuthServiceClient(env.AUTH_STORE_DOWN).resolveUser("a=b"));
    expect(err).toMatchObject({ code: "auth_service_unavailable", status: 503 });
  });

  it("gives up after timeoutMs with auth_service_timeout 504", async () => {
    const { cookie } = await signIn(people.ada());
    const err = await failure(new AuthServiceClient(env.AUTH_SLOW, { timeoutMs: 50 }).resolveSession(cookie));
    expect(err).toMatchObject({ code: "auth_service_timeout", status: 504, retryable: true });
    // The same entrypoint answers when given the time.
    expect(await new AuthServiceClient(env.AUTH_SLOW).resolveSession(cookie)).not.toBeNull();
  });

  it("rejects an answer of another shape (a misrouted binding) and a method the worker lacks", async () => {
    const other = new AuthServiceClient(env.AUTH_OTHER_SHAPE as unknown as AuthServiceBinding);
    expect(await failure(other.resolveSession("a=b"))).toMatchObject({
      code: "auth_service_bad_response",
      status: 502,
    });
    expect(await failure(other.listSessions("user_x"))).toMatchObject({ code: "auth_service_bad_response" });
    // OtherShapeService has no revokeUser: what an auth worker older than this SDK answers.
    expect(await failure(other.revokeUser("user_x"))).toMatchObject({ code: "auth_service_unsupported", status: 502 });
  });

  it("refuses to be built without a binding", () => {
    const build = () => new AuthServiceClient(undefined as unknown as AuthServiceBinding);
    expect(build).toThrow(AuthServiceError);
    expect(build).toThrow(/service binding/);
    expect(() => new AuthServiceClient(env.AUTH, { timeoutMs: 0 })).toThrow(RangeError);
  });
});

describe("AuthServiceClient.checkRateLimit: concurrent checks of one key travel as one call", () => {
  /** The real binding, with its rate-limit calls counted. */
  function countingBinding() {
    const calls = { single: 0, batches: [] as number[] };
    const binding = {
      checkRateLimit: (key: string, limit: number, window: number) => {
        calls.single++;
        return env.AUTH.checkRateLimit(key, limit, window);
      },
      checkRateLimitBatch: (key: string, limit: number, window: number, count: number) => {
        calls.batches.push(count);
        return env.AUTH.checkRateLimitBatch(key, limit, window, count);
      },
    } as unknown as AuthServiceBinding;
    return { calls, binding };
  }

  it("decides 40 concurrent checks exactly with one call, in arrival order", async () => {
    const { calls, binding } = countingBinding();
    const auth = new AuthServiceClient(binding);
    const key = `batch:${crypto.randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 40 }, () => auth.checkRateLimit(key, 10, 3_600)));
    expect(calls).toEqual({ single: 0, batches: [40] });
    expect(results.slice(0, 10).map((r) => [r.allowed, r.remaining])).toEqual(
      Array.from({ length: 10 }, (_, i) => [true, 9 - i]),
    );
    expect(results.slice(10).every((r) => !r.allowed && r.retryAfter !== undefined)).toBe(true);
    // A lone check is a plain call.
    expect(await auth.checkRateLimit(key, 10, 3_600)).toMatchObject({ allowed: false });
    expect(calls.single).toBe(1);
  });

  it("keeps keys and policies apart", async () => {
    const { calls, binding } = countingBinding();
    const auth = new AuthServiceClient(binding);
    const key = `batch:${crypto.randomUUID()}`;
    const [a, b, c] = await Promise.all([
      Promise.all(Array.from({ length: 3 }, () => auth.checkRateLimit(key, 2, 3_600))),
      Promise.all(Array.from({ length: 3 }, () => auth.checkRateLimit(key, 5, 3_600))),
      Promise.all(Array.from({ length: 3 }, () => auth.checkRateLimit(`${key}:other`, 2, 3_600))),
    ]);
    expect(calls.batches).toEqual([3, 3, 3]);
    expect([a, b, c].map((rs) => rs.filter((r) => r.allowed).length)).toEqual([2, 3, 2]);
  });

  it("the entrypoint refuses a batch count out of range", async () => {
    const auth = new AuthServiceClient(env.AUTH);
    for (const count of [0, 1_001, 2.5]) {
      await expect(env.AUTH.checkRateLimitBatch("k", 5, 60, count)).rejects.toThrow(/count must be an integer/);
    }
    expect(await auth.checkRateLimit(`batch:${crypto.randomUUID()}`, 1, 60)).toMatchObject({ allowed: true });
  });
});

describe("releaseRpcResult (client-sdk/core/rpc): an RPC answer is released and stays readable", () => {
  it("disposes what the runtime made disposable, leaves anything else alone, never throws", async () => {
    const ada = people.ada();
    const { cookie } = await signIn(ada);
    // A raw call over the service binding: the runtime's answer carries Symbol.dispose.
    const answer = await env.AUTH.resolveSession(cookie);
    const dispose = (Symbol as { dispose?: symbol }).dispose!;
    expect(typeof (answer as unknown as Record<symbol, unknown>)[dispose]).toBe("function");
    const released = releaseRpcResult(answer);
    expect(released).toBe(answer);
    expect(released?.user.id).toBe(ada.id);
    // Twice, or on values that are not RPC answers: harmless.
    expect(() => releaseRpcResult(answer)).not.toThrow();
    for (const value of [null, undefined, 7, "x", { plain: true }]) expect(releaseRpcResult(value)).toBe(value);
  });
});
