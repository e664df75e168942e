/**
 * What the contract tests share: the worker's origin, a cookie jar, a sign-in through WorkOS's
 * emulator (its hosted authorize answers with the code at once; `login_hint` picks the person),
 * the emulator's own API and events, and its webhook deliveries as the relay signed them again.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { inject } from "vitest";
import "./provided";
import worker from "./worker";

export const ORIGIN = "http://127.0.0.1:8787";
export const workos = inject("workos");
export const ACME = workos.organizationIds.org_01ACME00000000000000000000!;
export const GLOBEX = workos.organizationIds.org_01GLOBEX000000000000000000!;
export const ids = {
  ada: workos.userIds["ada@acme.test"]!,
  grace: workos.userIds["grace@globex.test"]!,
  alan: workos.userIds["alan@acme.test"]!,
  margaret: workos.userIds["margaret@example.test"]!,
  ivy: workos.userIds["ivy@acme.test"]!,
};

export type Jar = Record<string, string>;

export function cookieHeader(jar: Jar): string {
  return Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");
}

/** A request to the worker as this browser; keeps the cookies it sets. */
export async function send(jar: Jar, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (Object.keys(jar).length > 0) headers.set("Cookie", cookieHeader(jar));
  const res = await exports.default.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers, redirect: "manual" }));
  for (const line of res.headers.getSetCookie()) {
    const pair = line.split(";")[0]!;
    const eq = pair.indexOf("=");
    if (/Max-Age=0/i.test(line)) delete jar[pair.slice(0, eq)];
    else jar[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return res;
}

export const JSON_ACCEPT = { Accept: "application/json" };

/**
 * Signs `email` in through the worker's own login route and WorkOS's emulator: GET /auth/login
 * (the worker's authorize URL, at the emulator), the emulator's 302 with a code, the callback.
 * Returns the callback's answer (a 302 on success).
 */
export async function signIn(jar: Jar, email: string, query = ""): Promise<Response> {
  const start = await send(jar, `/auth/login${query}`);
  if (start.status !== 302) throw new Error(`login answered ${start.status}`);
  const authorize = new URL(start.headers.get("Location")!);
  if (authorize.origin !== workos.url) throw new Error(`login went to ${authorize.origin}, not the emulator`);
  authorize.searchParams.set("login_hint", email);
  const provider = await fetch(authorize, { redirect: "manual" });
  await provider.body?.cancel();
  const back = new URL(provider.headers.get("Location") ?? "");
  return send(jar, `/auth/callback${back.search}`, { headers: JSON_ACCEPT });
}

export async function me(jar: Jar): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await send(jar, "/api/me", { headers: JSON_ACCEPT });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A call to the emulator's API with its key. */
export async function workosApi<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${workos.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${workos.apiKey}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`emulator ${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** The emulator's own log of events (what it emitted), newest first. */
export async function events(): Promise<{ id: string; event: string; data: Record<string, unknown> }[]> {
  return (
    await workosApi<{ data: { id: string; event: string; data: Record<string, unknown> }[] }>(
      "GET",
      "/events?limit=100",
    )
  ).data;
}

interface Delivery {
  body: string;
  signature: string;
  event: string;
}

/**
 * Waits for the relay to have received a delivery the emulator sent after a change there (the
 * emulator posts at once, so the wait ends on the event, not on a clock; bounded in count).
 */
export async function delivery(
  match: (d: { event: string; data: Record<string, unknown> }) => boolean,
): Promise<Delivery> {
  for (let i = 0; i < 500; i++) {
    const all = (await (await fetch(`${workos.relayUrl}deliveries`)).json()) as Delivery[];
    const found = all.find((d) => {
      const parsed = JSON.parse(d.body) as { event: string; data: Record<string, unknown> };
      return match(parsed);
    });
    if (found) return found;
    await scheduler.wait(10);
  }
  throw new Error("the emulator sent no such webhook");
}

/**
 * Posts a relayed delivery to the worker's webhook, with the relay's millisecond signature, and
 * waits for the work the worker left in `waitUntil` (applying the event).
 */
export async function deliver(d: Delivery): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${ORIGIN}/webhooks/identity`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "WorkOS-Signature": d.signature },
      body: d.body,
    }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}
