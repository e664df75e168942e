/**
 * Fixtures for the fault cases: sessions opened with the auth worker's own
 * secret, store and session objects; a full login through the auth routes
 * over a FakeIdentityClient; the example consumer with its AUTH binding on a
 * chosen entrypoint; and the one assertion every failure answer must pass.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Application } from "gatehouse-workers";
import { AuthServiceProvider, type IdentityUser, SessionManager } from "gatehouse-workers/auth";
import type { AuthServiceBinding } from "gatehouse-workers/client";
import { FakeIdentityClient } from "gatehouse-workers/testing";
import { expect } from "vitest";
import consumer from "../../workers/example-consumer/worker";
import { INTERNAL_DETAIL } from "./broken";

export { AuthServiceRateLimiter } from "../../workers/example-consumer/limiter";

export const ORIGIN = "https://auth.example.com";
export const APP = "https://app.example.com";
const REDIRECT_URL = "https://auth.example.com/auth/callback";

let counter = 0;

/** A fresh person (fresh id: their session object never shares state with another test). */
export function person(): IdentityUser {
  const id = `user_fault_${Date.now().toString(36)}_${++counter}`;
  return {
    id,
    email: `${id}@acme.test`,
    firstName: "Fault",
    lastName: "Tester",
    memberships: [{ organizationId: "org_acme", organizationSlug: "acme", role: "admin" }],
  };
}

/** Opens a session as the login callback would (healthy bindings); returns its Cookie header and public id. */
export async function signIn(user: IdentityUser = person()): Promise<{ cookie: string; sessionId: string }> {
  const sessions = new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS });
  const { sessionId, response } = await sessions.createSession(user, "org_acme");
  return { cookie: response.headers.get("Set-Cookie")!.split(";")[0]!, sessionId };
}

/** Runs /auth/login then /auth/callback on an auth Application over `authEnv`, with a fake provider. */
export async function loginThrough(authEnv: Cloudflare.Env, user: IdentityUser): Promise<Response> {
  const fake = new FakeIdentityClient({ users: [user], synthetic: false });
  const app = Application.create(authEnv, {
    providers: [new AuthServiceProvider({ identityClient: fake, redirectUrl: REDIRECT_URL })],
  });
  const start = await app.fetch(new Request(`${ORIGIN}/auth/login`));
  expect(start.status).toBe(302);
  const flowCookies = start.headers.getSetCookie().map((c) => c.split(";")[0]);
  const authorize = new URL(start.headers.get("Location")!);
  const code = fake.issueCode(user.id, { codeChallenge: authorize.searchParams.get("code_challenge")! });
  return app.fetch(
    new Request(`${ORIGIN}/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: flowCookies.join("; "), Accept: "text/html" },
    }),
  );
}

/** The session keys KV holds for a user (metadata carries the user id). */
export async function sessionKeysOf(userId: string): Promise<string[]> {
  const { keys } = await env.SESSIONS.list<{ userId: string }>({ prefix: "sess:" });
  return keys.filter((k) => k.metadata?.userId === userId).map((k) => k.name);
}

/** The consumer's AUTH binding: the auth worker's real AuthService, or a twin with one binding failing. */
export type AuthBinding = "AUTH" | "AUTH_KV_DOWN" | "AUTH_OBJECTS_DOWN" | "AUTH_LIMITER_DOWN" | "AUTH_DOWN";

const consumers = new Map<AuthBinding, { AUTH: AuthServiceBinding; AUTH_LOGIN_URL: string }>();

/** A request to the example consumer with its AUTH service binding pointing at `auth`. */
export async function consumerFetch(auth: AuthBinding, path: string, init: RequestInit = {}): Promise<Response> {
  let consumerEnv = consumers.get(auth);
  if (!consumerEnv) {
    consumerEnv = { AUTH: env[auth] as unknown as AuthServiceBinding, AUTH_LOGIN_URL: `${ORIGIN}/auth/login` };
    consumers.set(auth, consumerEnv);
  }
  const ctx = createExecutionContext();
  const res = await consumer.fetch(new Request(`${APP}${path}`, { redirect: "manual", ...init }), consumerEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/**
 * A failure answered the way people and clients can use: this status (or any
 * 5xx), a body (naming `code` if given), JSON or an HTML page, not cacheable, and nothing internal
 * (no stack, no message of the underlying error). Returns the body text.
 */
export async function expectCleanError(res: Response, status: number | "5xx", code?: string): Promise<string> {
  const text = await res.text();
  if (status === "5xx") expect(res.status, text).toSatisfy((s: number) => s >= 500 && s < 600);
  else expect(res.status, text).toBe(status);
  expect(res.headers.get("Content-Type")).toMatch(/^(application\/json|text\/html)/);
  expect(res.headers.get("Cache-Control")).toContain("no-store");
  expect(text.length).toBeGreaterThan(0);
  if (code !== undefined) expect(text).toContain(code);
  expect(text).not.toContain(INTERNAL_DETAIL);
  expect(text).not.toMatch(/\n\s+at |\.(ts|js):\d+|stack/i);
  return text;
}

/** The error a promise rejects with (RPC promises included), or null if it resolves. */
export async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  // Awaited through `then` only: touching other properties of an RPC promise starts pipelined calls.
  return promise.then(
    () => null,
    (err: unknown) => err,
  );
}
