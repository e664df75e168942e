/**
 * The attacker's view of the auth worker for the security suite: the deployed worker's fetch
 * handler with the security env pointed at the local identity provider, a cookie jar, and a
 * sign-in that goes through the real routes (login → provider code → callback).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { type IdentityUser, SessionManager } from "gatehouse-workers/auth";
import { inject } from "vitest";
import { identityVariables } from "../../../scripts/local-idp/identity-env";
import { type AuthWorkerEnv, authApplication } from "../../../workers/auth/app";
import { cookieHeader, cookiesFrom } from "../../auth/helpers";
import { providerCode as codeResponse } from "../../local-idp/flow-code";
import worker from "../worker";

export { cookieHeader, cookiesFrom };

export const idp = inject("localIdp");
export const ORIGIN = "https://auth.example.com";
export const REDIRECT_URL = `${ORIGIN}/auth/callback`;

/** The worker's env as the tests build it: the security bindings and vars, as the auth module reads them. */
export type WorkerEnv = AuthWorkerEnv & Cloudflare.Env;

/** The security env, talking to the local identity provider. */
export const live: WorkerEnv = { ...env, ...identityVariables(idp) };

let ipCounter = 0;
/** A fresh client address per request, so the route limits only trip where a test means them to. */
export function freshIp(): string {
  const n = ++ipCounter;
  return `198.51.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
}

/** Sends one request through the worker's fetch handler, as a browser from a fresh address would. */
export async function send(
  path: string,
  init: RequestInit & { headers?: Record<string, string> } = {},
  e: WorkerEnv = live,
): Promise<Response> {
  const request = new Request(new URL(path, ORIGIN), {
    redirect: "manual",
    ...init,
    headers: { "CF-Connecting-IP": freshIp(), ...init.headers },
  });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request as Parameters<typeof worker.fetch>[0], e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** The local provider's shortcut for its sign-in page: a code for `userId` in this flow. */
export async function providerCode(
  authorize: URL,
  userId: string,
  organizationId: string | null = null,
  authTime?: number,
): Promise<Response> {
  return codeResponse(idp.url, authorize, userId, REDIRECT_URL, organizationId, authTime);
}

/** Starts a sign-in at `/auth/login?<query>` and returns the jar and the provider's authorize URL. */
export async function startLogin(query = ""): Promise<{ jar: Record<string, string>; authorize: URL }> {
  const start = await send(`/auth/login${query ? `?${query}` : ""}`);
  if (start.status !== 302) throw new Error(`login answered ${start.status}`);
  return { jar: cookiesFrom(start), authorize: new URL(start.headers.get("Location")!) };
}

/** Finishes a sign-in at the callback with the flow cookie in `jar`. */
export async function callback(authorize: URL, code: string, jar: Record<string, string>): Promise<Response> {
  const res = await send(`/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
    headers: { Cookie: cookieHeader(jar) },
  });
  cookiesFrom(res, jar);
  return res;
}

/** GET /api/me with the jar's cookies, as JSON. */
export async function me(jar: Record<string, string>): Promise<Response> {
  return send("/api/me", { headers: { Cookie: cookieHeader(jar), Accept: "application/json" } });
}

let people = 0;
/** A session of a fresh user (a member of Acme), made by the worker's own SessionManager: its cookie jar. */
export async function signedInJar(e: WorkerEnv = live): Promise<Record<string, string>> {
  const id = `user_sec_${Date.now().toString(36)}_${++people}`;
  const user: IdentityUser = {
    id,
    email: `${id}@acme.test`,
    firstName: "Test",
    lastName: id,
    memberships: [{ organizationId: "org_acme", organizationSlug: "acme", role: "member" }],
  };
  const { response } = await authApplication(e).container.resolve(SessionManager).createSession(user, "org_acme");
  return cookiesFrom(response);
}
