/**
 * Fixtures for the consumer tests: people with memberships, sessions opened
 * inside the auxiliary auth worker (TestSessions), and requests to the example
 * consumer, either through the main worker or with AUTH swapped for one of
 * the failing bindings (same consumer code, another auth worker behind it).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import type { IdentityUser } from "gatehouse-workers/auth";
import consumer, { type ConsumerEnv } from "../../workers/example-consumer/worker";

export const APP = "https://app.example.com";
export const LOGIN_URL = "https://auth.example.com/auth/login";

let counter = 0;

function person(name: string, memberships: IdentityUser["memberships"]): IdentityUser {
  const [firstName, lastName] = name.split(" ") as [string, string];
  const id = `user_${firstName.toLowerCase()}_${Date.now().toString(36)}_${++counter}`;
  return { id, email: `${firstName.toLowerCase()}@example.test`, firstName, lastName, memberships };
}

const ACME = { organizationId: "org_acme", organizationSlug: "acme" };
const GLOBEX = { organizationId: "org_globex", organizationSlug: "globex" };

/** Fresh people (fresh ids, so their session objects never share state across tests). */
export const people = {
  ada: () => person("Ada Lovelace", [{ ...ACME, role: "admin" }]),
  grace: () =>
    person("Grace Hopper", [
      { ...ACME, role: "member" },
      { ...GLOBEX, role: "admin" },
    ]),
  alan: () => person("Alan Turing", [{ ...ACME, role: "member" }]),
};

/** Opens a session in the auth worker, as its login callback would; returns the public id and a Cookie header. */
export function signIn(
  user: IdentityUser,
  organizationId = "org_acme",
  facts: { authenticatedAt?: number; impersonator?: { email: string; reason: string | null } } = {},
): Promise<{ sessionId: string; cookie: string }> {
  return env.AUTH_TEST.create(user, organizationId, facts);
}

export interface Visit {
  cookie?: string;
  accept?: string;
  method?: string;
}

function request(path: string, visit: Visit): Request {
  const headers = new Headers();
  if (visit.cookie) headers.set("Cookie", visit.cookie);
  if (visit.accept) headers.set("Accept", visit.accept);
  return new Request(`${APP}${path}`, { method: visit.method ?? "GET", headers, redirect: "manual" });
}

/** A request to the consumer (the main worker), which reaches the auth worker through AUTH. */
export function visit(path: string, options: Visit = {}): Promise<Response> {
  return exports.default.fetch(request(path, options));
}

type FailingBinding = "AUTH_DOWN" | "AUTH_MISCONFIGURED" | "AUTH_STORE_DOWN" | "AUTH_BROKEN";
const swapped = new Map<FailingBinding, ConsumerEnv>();

/** The same consumer code with AUTH bound to a failing auth worker instead. */
export async function visitWith(binding: FailingBinding, path: string, options: Visit = {}): Promise<Response> {
  let consumerEnv = swapped.get(binding);
  if (!consumerEnv) {
    consumerEnv = { ...env, AUTH: env[binding] };
    swapped.set(binding, consumerEnv);
  }
  const ctx = createExecutionContext();
  const res = await consumer.fetch(request(path, options), consumerEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
