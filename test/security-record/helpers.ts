/**
 * Fixtures for the security-record tests: SessionManagers over the real local KV and session
 * objects (strict or eventual, with or without the organizations' objects, with an injectable
 * clock), sign-ins from a given device and place, the whole timeline of a user, the objects'
 * clock, the admin API, and a counting wrapper that shows which bindings a call touched.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { type IdentityUser, SessionManager, type SessionManagerOptions } from "gatehouse-workers/auth";
import { setObjectClock } from "gatehouse-workers/testing";
import type { SecurityEvent, SecurityEventType, SessionLocation } from "../../client-sdk/protocol/security-record";

export const ORIGIN = "https://auth.example.com";

/** Real browsers' User-Agents: two Firefox versions on one Mac (one device), Safari on an iPhone. */
export const FIREFOX_140_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:140.0) Gecko/20100101 Firefox/140.0";
export const FIREFOX_141_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:141.0) Gecko/20100101 Firefox/141.0";
export const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1";

export const BERLIN: SessionLocation = { country: "DE", region: "Berlin", city: "Berlin", colo: "TXL" };
export const PARIS: SessionLocation = { country: "FR", region: "Île-de-France", city: "Paris", colo: "CDG" };

let counter = 0;
/** A fresh id per call, so objects never share state across tests. */
export function fresh(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${++counter}`;
}
export const freshUser = () => fresh("user");
export const freshOrg = () => fresh("org");

/** A SessionManager over the test worker's bindings; strict with the organizations' objects unless told otherwise. */
export function manager(options: SessionManagerOptions = {}): SessionManager {
  return new SessionManager(env.SESSIONS, env.SESSION_SECRET, {
    userSessions: env.USER_SESSIONS,
    organizations: env.ORGANIZATIONS,
    ...options,
  });
}

/** A person as the identity provider returns them, a member of each of `organizations`. */
export function identity(id: string, organizations: string[] = ["org_acme"], providerSessionId?: string): IdentityUser {
  return {
    id,
    email: `${id}@acme.test`,
    firstName: "Test",
    lastName: id,
    memberships: organizations.map((organizationId) => ({
      organizationId,
      organizationSlug: organizationId.replaceAll("_", "-"),
      role: "member",
    })),
    ...(providerSessionId ? { providerSessionId } : {}),
  };
}

export interface SignIn {
  sessionId: string;
  cookie: string;
  newDevice: boolean;
}

/** Signs `userId` in through `sessions`, from a device (User-Agent) and a place, into the first organization. */
export async function signIn(
  sessions: SessionManager,
  userId: string,
  from: {
    userAgent?: string;
    ip?: string;
    location?: SessionLocation;
    organizations?: string[];
    providerSessionId?: string;
  } = {},
): Promise<SignIn> {
  const organizations = from.organizations ?? ["org_acme"];
  const { sessionId, response, newDevice } = await sessions.createSession(
    identity(userId, organizations, from.providerSessionId),
    organizations[0],
    {
      userAgent: from.userAgent ?? FIREFOX_140_MAC,
      ip: from.ip ?? "203.0.113.7",
      location: from.location ?? BERLIN,
    },
  );
  return { sessionId, cookie: response.headers.get("Set-Cookie")!.split(";")[0]!, newDevice };
}

/** A request carrying the cookie, from a device and address. */
export function requestWith(cookie: string, headers: Record<string, string> = {}): Request {
  return new Request(`${ORIGIN}/`, { headers: { Cookie: cookie, ...headers } });
}

export function stubOf(userId: string) {
  return env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId));
}

export function organizationOf(organizationId: string) {
  return env.ORGANIZATIONS.get(env.ORGANIZATIONS.idFromName(organizationId));
}

/** The user's whole timeline, newest first, read page by page from their object. */
export async function allEvents(userId: string): Promise<SecurityEvent[]> {
  const events: SecurityEvent[] = [];
  let cursor: string | null = null;
  do {
    const page = await stubOf(userId).timeline({ cursor, limit: 100 });
    events.push(...page.events);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return events;
}

export async function eventsOf(userId: string, type: SecurityEventType): Promise<SecurityEvent[]> {
  return (await allEvents(userId)).filter((e) => e.type === type);
}

/** Runs `work` with the session objects' clock fixed at `at` (ms), then restores `Date.now`. */
export async function atObjectTime<T>(at: number, work: () => Promise<T>): Promise<T> {
  setObjectClock(() => at);
  try {
    return await work();
  } finally {
    setObjectClock(null);
  }
}

/** Runs the user's alarm until no KV write of a revocation is left (the alarm also runs by itself). */
export async function drainKv(userId: string): Promise<void> {
  const stub = stubOf(userId);
  for (let i = 0; i < 20 && (await stub.stats()).pendingKvDeletes > 0; i++) await runDurableObjectAlarm(stub);
  if ((await stub.stats()).pendingKvDeletes > 0) throw new Error("KV writes still pending after 20 alarms");
}

/** What KV holds for the user, read by listing: live session records and revoked marks. */
export async function kvOf(userId: string): Promise<{ live: string[]; revoked: string[] }> {
  const live: string[] = [];
  const revoked: string[] = [];
  let cursor: string | undefined;
  do {
    const page: KVNamespaceListResult<{ userId?: string; revoked?: boolean }> = await env.SESSIONS.list({
      prefix: "sess:",
      ...(cursor ? { cursor } : {}),
    });
    for (const key of page.keys) {
      if (key.metadata?.userId !== userId) continue;
      (key.metadata.revoked ? revoked : live).push(key.name.slice("sess:".length));
    }
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  return { live: live.sort(), revoked: revoked.sort() };
}

let clients = 0;
/** A client address of its own (the admin routes are rate-limited per address; tests that are not about that stay apart). */
export function freshAddress(): string {
  clients++;
  return `198.18.${Math.floor(clients / 250) % 250}.${(clients % 250) + 1}`;
}

/** A call of the admin API with a bearer token (the default token unless told), from its own address unless told. */
export function admin(
  method: string,
  path: string,
  options: { token?: string | null; body?: string; ip?: string; cookie?: string } = {},
): Promise<Response> {
  const token = options.token === undefined ? env.ADMIN_API_TOKEN : options.token;
  const headers: Record<string, string> = { "CF-Connecting-IP": options.ip ?? freshAddress() };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (options.cookie) headers.Cookie = options.cookie;
  return exports.default.fetch(`${ORIGIN}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}

/** The `secops` token of ADMIN_API_TOKENS (label:token). */
export const SECOPS_TOKEN = env.ADMIN_API_TOKENS.slice("secops:".length);

/**
 * Wraps a binding so every method call through it is written down (`name:firstArgument`), and
 * otherwise passes through to the real binding: which round trips a call made, without a mock.
 */
export function counted<T extends object>(binding: T): { binding: T; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(binding, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(`${String(property)}:${typeof args[0] === "string" ? args[0] : typeof args[0]}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { binding: proxy, calls };
}

/** Waits, at most `ms`, for `check` to answer a value; polls (real asynchronous delivery only). */
export async function eventually<T>(check: () => Promise<T | null>, ms = 5_000, what = "condition"): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error(`${what}: not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
