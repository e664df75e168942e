/**
 * Fixtures for the webhook tests: provider events signed with the provider-side signer
 * (scripts/local-idp/webhook-signature.ts, the code the local identity provider signs with),
 * delivered to the auth worker with an ExecutionContext so a test can wait for the work done in
 * `waitUntil`; sessions made by the real SessionManager; the local provider's controls.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { type IdentityUser, SessionManager } from "gatehouse-workers/auth";
import type { ProviderEventResult } from "gatehouse-workers/durable-objects";
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from "../../scripts/local-idp/webhook-signature";
import worker from "./worker";

export const ORIGIN = "https://auth.example.com";
export const HOOK = `${ORIGIN}/webhooks/identity`;
export const ACME = "org_01ACME00000000000000000000";
export const GLOBEX = "org_01GLOBEX000000000000000000";

export function manager(): SessionManager {
  return new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS });
}

let counter = 0;
/** A fresh user id per test, so objects never share state across tests. */
export function freshUser(): string {
  return `user_wh_${Date.now().toString(36)}_${++counter}`;
}

export function freshEventId(): string {
  return `event_${Date.now().toString(36)}_${++counter}_${crypto.randomUUID().slice(0, 8)}`;
}

export function identity(id: string, providerSessionId?: string): IdentityUser {
  return {
    id,
    email: `${id}@acme.test`,
    firstName: "Test",
    lastName: id,
    memberships: [{ organizationId: ACME, organizationSlug: "acme", role: "admin" }],
    ...(providerSessionId ? { providerSessionId } : {}),
  };
}

export async function newSession(userId: string, providerSessionId?: string) {
  const { sessionId, response } = await manager().createSession(identity(userId, providerSessionId), ACME);
  return { sessionId, cookie: response.headers.get("Set-Cookie")!.split(";")[0]! };
}

/** The user's stored memberships for one session, straight from KV. */
export async function storedMemberships(sessionId: string) {
  const record = await env.SESSIONS.get<{ memberships: { organizationId: string; role: string }[] }>(
    `sess:${sessionId}`,
    "json",
  );
  return record?.memberships ?? null;
}

export function stubOf(userId: string) {
  return env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId));
}

/** A WorkOS event body (snake_case, as the provider sends it). */
export function eventBody(type: string, data: Record<string, unknown>, options: { id?: string; at?: number } = {}) {
  return JSON.stringify({
    id: options.id ?? freshEventId(),
    event: type,
    data,
    created_at: new Date(options.at ?? Date.now()).toISOString(),
  });
}

export function membershipData(userId: string, role: string | null, options: { org?: string; status?: string } = {}) {
  return {
    object: "organization_membership",
    id: `om_${userId}`,
    user_id: userId,
    organization_id: options.org ?? ACME,
    organization_name: "Acme",
    status: options.status ?? "active",
    role: role === null ? undefined : { slug: role },
    created_at: "2024-01-15T09:00:00.000Z",
    updated_at: new Date().toISOString(),
  };
}

export function sessionData(userId: string, providerSessionId: string) {
  return {
    object: "session",
    id: providerSessionId,
    user_id: userId,
    organization_id: ACME,
    status: "revoked",
    auth_method: "password",
    ip_address: null,
    user_agent: null,
    expires_at: new Date(Date.now() + 3600_000).toISOString(),
    ended_at: new Date().toISOString(),
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
  };
}

export interface Delivered {
  res: Response;
  body: Record<string, unknown>;
}

/**
 * POSTs a body to the webhook route through the auth worker's fetch handler and waits for the
 * work it left in `waitUntil`. `signature` overrides the header (null: none).
 */
export async function deliver(
  body: string,
  options: { signature?: string | null; secret?: string; at?: number; headers?: Record<string, string> } = {},
): Promise<Delivered> {
  const signature =
    options.signature !== undefined
      ? options.signature
      : await signWebhook(body, options.secret ?? env.IDENTITY_WEBHOOK_SECRET, options.at ?? Date.now());
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
  if (signature !== null) headers[WEBHOOK_SIGNATURE_HEADER] = signature;
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(HOOK, { method: "POST", headers, body }), env, ctx);
  await waitOnExecutionContext(ctx);
  return { res, body: (await res.json()) as Record<string, unknown> };
}

/** Signs and delivers `type`/`data` as the provider would; returns the answer. */
export function sendEvent(type: string, data: Record<string, unknown>, options: { id?: string; at?: number } = {}) {
  return deliver(eventBody(type, data, options));
}

export async function applyDirect(
  userId: string,
  event: Parameters<ReturnType<typeof stubOf>["applyProviderEvent"]>[0],
) {
  return (await stubOf(userId).applyProviderEvent(event)) as ProviderEventResult;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
