/**
 * @module
 * How the cost bench measures one operation: everything the last one left running has finished
 * (`settle`), the ledger is read, the operation runs through the deployed routes and entrypoints,
 * everything it started finishes (alarms, `waitUntil`, drains: `settle` with the operation's own
 * completion check), the rate-limit windows it opened are closed by their alarm, and the ledger
 * is read again. Setup (sessions, members) goes through the raw bindings and is never measured.
 */
import { listDurableObjectIds, runDurableObjectAlarm } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { type IdentityUser, SessionManager } from "gatehouse-workers/auth";
import { isRevokedMark } from "../../client-sdk/protocol/session-record";
import { setObjectClock } from "../../durable-objects/clock";
import { uncountedFetch } from "./bindings";
import { between, ledger, per, type RawCounts } from "./ledger";

export const ORIGIN = "https://auth.example.com";
export const APP = "https://app.example.com";
/** One browser: the limiter keys on its address; the session records its device. */
export const BROWSER = {
  "CF-Connecting-IP": "203.0.113.7",
  "User-Agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:140.0) Gecko/20100101 Firefox/140.0",
};

/** The entrypoints of bench/cost/worker.ts (named here: the type-check sees every project's main module). */
export const entry = exports as unknown as Record<
  "default" | "GuardedApp" | "EventualAuthWorker" | "BoundAuthWorker" | "EventualBoundAuthWorker",
  Fetcher
>;

/** This run's names: fresh users and organizations, so no run sees another's state. */
export const stamp = Date.now().toString(36);
export const id = (name: string) => `user_cost_${name}_${stamp}`;
export const organizations = (name: string) => [1, 2, 3].map((n) => `org_cost_${name}${n}_${stamp}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until nothing was counted for `quietMs` and `done` (the operation's own completion: a
 * drain emptied, a rewrite queue empty) says so.
 */
export async function settle(done?: () => Promise<boolean>, quietMs = 400): Promise<void> {
  const deadline = Date.now() + 300_000;
  let seen = ledger.version;
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    await sleep(25);
    if (ledger.version !== seen) {
      seen = ledger.version;
      quietSince = Date.now();
      continue;
    }
    if (Date.now() - quietSince < quietMs) continue;
    if (!done || (await done())) {
      if (ledger.version === seen) return;
    }
  }
  throw new Error("the operation did not settle within 5 minutes");
}

/**
 * Runs the alarm of every rate-limiter object that has one, with the objects' clock past the
 * window: each window an operation opened is closed within that operation, as if it were the only
 * one in its window (a busy key shares one such alarm among all its checks).
 */
export async function closeLimiterWindows(): Promise<void> {
  const ids = await listDurableObjectIds(env.RATE_LIMITER);
  setObjectClock(() => Date.now() + 3_600_000);
  try {
    for (const id of ids) await runDurableObjectAlarm(env.RATE_LIMITER.get(id));
  } finally {
    setObjectClock(null);
  }
}

/** The raw counts of `run`, divided by `count` (one operation of a batch). */
export async function measure(
  run: () => Promise<void>,
  options: { done?: () => Promise<boolean>; count?: number } = {},
): Promise<RawCounts> {
  await closeLimiterWindows();
  await settle();
  const before = ledger.snapshot();
  await run();
  await settle(options.done);
  await closeLimiterWindows();
  await settle();
  return per(between(before, ledger.snapshot()), options.count ?? 1);
}

/** Expects `status`, then drops the body. */
export async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  await res.body?.cancel();
  return res;
}

const cookieOf = (res: Response, name = "__Host-gh_session") =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(";")[0];

/**
 * A sign-in as a browser makes it: `/auth/login`, the provider's page (its code from the local
 * provider's test control, uncounted: that is the provider's work), `/auth/callback`. Its session cookie.
 */
export async function signIn(worker: Fetcher, userId: string, organizationId: string | null): Promise<string> {
  const query = organizationId ? `?organization_id=${organizationId}` : "";
  const login = await expectStatus(
    await worker.fetch(`${ORIGIN}/auth/login${query}`, {
      headers: { ...BROWSER, Accept: "text/html" },
      redirect: "manual",
    }),
    302,
    "/auth/login",
  );
  const flow = login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const authorize = new URL(login.headers.get("Location")!);
  const issued = await uncountedFetch(`http://${env.IDENTITY_API_HOSTNAME}:${env.IDENTITY_API_PORT}/__local/codes`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      user_id: userId,
      state: authorize.searchParams.get("state"),
      code_challenge: authorize.searchParams.get("code_challenge"),
      redirect_uri: env.AUTH_REDIRECT_URL,
      ...(organizationId ? { organization_id: organizationId } : {}),
    }),
  });
  if (issued.status !== 201) throw new Error(`the local provider refused a code: ${await issued.text()}`);
  const { code } = (await issued.json()) as { code: string };
  const callback = await expectStatus(
    await worker.fetch(`${ORIGIN}/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: { ...BROWSER, Cookie: flow, Accept: "text/html" },
      redirect: "manual",
    }),
    302,
    "/auth/callback",
  );
  const cookie = cookieOf(callback);
  if (!cookie) throw new Error("the callback set no session cookie");
  return cookie;
}

/** A person of the bench: a fresh id, a membership in each of `organizationIds`. */
export function person(id: string, organizationIds: readonly string[] = []): IdentityUser {
  return {
    id,
    email: `${id}@acme.test`,
    firstName: "Cost",
    lastName: "Bench",
    memberships: organizationIds.map((organizationId) => ({
      organizationId,
      organizationSlug: organizationId,
      role: "member",
    })),
  };
}

/** Setup, never measured: `count` sessions of `user` opened straight on the raw bindings. */
export async function openSessions(
  user: IdentityUser,
  count: number,
  organizationId?: string,
): Promise<{ ids: string[]; cookies: string[] }> {
  const sessions = new SessionManager(env.SESSIONS, env.SESSION_SECRET, {
    userSessions: env.USER_SESSIONS,
    organizations: env.ORGANIZATIONS,
  });
  const ids: string[] = [];
  const cookies: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const made = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, () =>
        sessions.createSession(user, organizationId, { userAgent: BROWSER["User-Agent"], ip: "203.0.113.7" }),
      ),
    );
    for (const m of made) {
      ids.push(m.sessionId);
      cookies.push(m.response.headers.get("Set-Cookie")!.split(";")[0]!);
    }
  }
  return { ids, cookies };
}

/** The raw stub of a user's session object (the bench's probes: `stats` is never counted). */
export function userObject(userId: string) {
  return env.USER_SESSIONS.get(env.USER_SESSIONS.idFromName(userId));
}

/** Every KV record of `ids` is a revoked mark (read in bulk on the raw binding: uncounted). */
export async function allMarked(ids: string[]): Promise<boolean> {
  for (let i = 0; i < ids.length; i += 100) {
    const values = await env.SESSIONS.get(
      ids.slice(i, i + 100).map((s) => `sess:${s}`),
      "json",
    );
    if (![...values.values()].every(isRevokedMark)) return false;
  }
  return true;
}
