/**
 * Side by side with Better Auth (`better-auth`, issue 20), in the same workerd and the same run.
 *
 * Better Auth's setup is its documented Workers one: `nodejs_compat`, the secret passed from `env`,
 * `advanced.ipAddress.ipAddressHeaders: ["cf-connecting-ip"]` and `advanced.backgroundTasks`
 * with `waitUntil` from `cloudflare:workers` (its Cloudflare guide); users in D1 (`database:
 * env.BETTER_AUTH_DB`, its native D1 support; tables made with `getMigrations`, its documented
 * Workers migration path; local D1 in miniflare); sessions in `secondaryStorage`, implemented on
 * the same local KV namespace our records live in (its documented `SecondaryStorage` interface,
 * keys under `better-auth:` as its Redis storage prefixes them; KV refuses TTLs under 60 s, so
 * shorter ones are raised to 60 s, and KV has no atomic `getAndDelete`/`increment`: those two are
 * a read then a write here, and none of the calls measured uses them).
 *
 * - auth.vs_better_auth_resolve_ratio: one person signed in on each side through its real flow
 *   (ours: `SessionManager.createSession`, as the callback does; theirs: `signUpEmail`, then
 *   `signInEmail`), then a session resolved from its Cookie header: ours through `AuthMiddleware`
 *   exactly as `auth.resolve_ratio` does (HMAC verify, SHA-256, one KV read, expiry checks;
 *   eventual mode, as there), theirs through `auth.api.getSession({ headers })` with the cookie
 *   cache off (signed-cookie HMAC verify, then two KV reads: the session and the user's
 *   `revoked-sessions-before-` mark). `ratio()`: their time over ours. Each call checks the user id
 *   it got back, and Better Auth's KV reads are counted, so both really resolve from KV.
 * - auth.revoked_accepted_ms.*: after a revoke, how long each still accepts the session, as
 *   (first instant the session is refused) - (instant of the revoke), at 1 ms resolution. Time is
 *   injected, never slept on:
 *   - ours_strict: our clock option; the revoke at T, then the next request at T, asked at a
 *     location whose KV still serves the record (below): refused, so 0.
 *   - ours_eventual: we keep no per-session cache in the isolate (the only isolate cache is the
 *     kill switch's `EPOCH_CACHE_MS`, not a single revoke's), so the window is KV's: the revoking
 *     location sees the revoked mark at once (checked: refused at T), other locations serve what
 *     they read for KV's default cacheTtl, 60 s, which we never change. That other location is
 *     emulated by a KV wrapper keeping each read for 60 s by the injected clock (read at T just
 *     before the revoke, the worst case): accepted at T + 59,999 ms, refused at T + 60,000 ms.
 *     So this figure is Cloudflare's documented cache time, proven to be all eventual mode adds;
 *     miniflare's KV is one location and cannot show real propagation.
 *   - better_auth_cookie_cache: `session.cookieCache` on with the docs' `maxAge: 5 * 60`. Better
 *     Auth compares the `session_data` cookie's `expiresAt` with `Date.now()`, so Date is faked
 *     (Vitest fake timers, Date only; its code and ours share the isolate's global): device A
 *     signs in at T, device B revokes A's session with `revokeSession` at T (A's session is then
 *     refused with `disableCookieCache: true`), A's next request at T is accepted from its
 *     cookie; the expiry read from A's `session_data` cookie (compact strategy: base64url JSON
 *     with `expiresAt`) is T + 300,000 ms: accepted there (their check is `expiresAt < now`),
 *     refused 1 ms later. The window lives in the browser's cookie, so it is the same in every
 *     location; a cookie issued less than maxAge before the revoke has the rest of its maxAge.
 */
import { env, waitUntil } from "cloudflare:workers";
import { betterAuth, type SecondaryStorage } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import { compose } from "gatehouse-workers";
import { AuthMiddleware, currentUser, type IdentityUser, SessionManager } from "gatehouse-workers/auth";
import { afterEach, beforeAll, it, vi } from "vitest";
import { ratio, record } from "../harness";

const ORIGIN = "https://app.test";
/** The docs' cookie cache: "maxAge: 5 * 60 // Cache duration in seconds (5 minutes)". */
const COOKIE_CACHE_MAX_AGE_S = 5 * 60;
/** KV's default `cacheTtl` (seconds → ms): how long another location serves a value it read. */
const KV_CACHE_TTL_MS = 60_000;
const PASSWORD = "correct-horse-battery-staple";
const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** Counts Better Auth's KV reads (the secondary storage's `get`). */
let theirKvReads = 0;

/** Better Auth's `SecondaryStorage` interface on a KV namespace. */
function kvSecondaryStorage(kv: KVNamespace, prefix = "better-auth:"): SecondaryStorage {
  const key = (k: string) => `${prefix}${k}`;
  const ttl = (seconds?: number) => (seconds ? { expirationTtl: Math.max(60, Math.ceil(seconds)) } : {});
  return {
    get: (k) => {
      theirKvReads++;
      return kv.get(key(k));
    },
    set: async (k, value, seconds) => {
      await kv.put(key(k), value, ttl(seconds));
    },
    delete: (k) => kv.delete(key(k)),
    getAndDelete: async (k) => {
      const value = await kv.get(key(k));
      if (value !== null) await kv.delete(key(k));
      return value;
    },
    increment: async (k, seconds) => {
      const next = Number((await kv.get(key(k))) ?? 0) + 1;
      await kv.put(key(k), String(next), ttl(seconds));
      return next;
    },
  };
}

const shared = {
  baseURL: ORIGIN,
  secret: env.BETTER_AUTH_SECRET,
  database: env.BETTER_AUTH_DB,
  secondaryStorage: kvSecondaryStorage(env.SESSIONS),
  emailAndPassword: { enabled: true },
  advanced: { ipAddress: { ipAddressHeaders: ["cf-connecting-ip"] }, backgroundTasks: { handler: waitUntil } },
  telemetry: { enabled: false },
};
const cacheOff = betterAuth({ ...shared, session: { cookieCache: { enabled: false } } });
const cacheOn = betterAuth({
  ...shared,
  session: { cookieCache: { enabled: true, maxAge: COOKIE_CACHE_MAX_AGE_S } },
});
type BetterAuth = typeof cacheOff | typeof cacheOn;

beforeAll(async () => {
  const { runMigrations } = await getMigrations(cacheOff.options);
  await runMigrations();
});

afterEach(() => {
  vi.useRealTimers();
});

/** The Cookie header a browser sends back after this response (cleared cookies left out). */
function cookiesOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .filter((c) => !c.endsWith("="))
    .join("; ");
}

/** Their real flow: sign up, then sign in with email and password; the signed-in browser's Cookie header. */
async function theirSignIn(auth: BetterAuth, email: string, signUp = true): Promise<string> {
  if (signUp) {
    const made = await auth.api.signUpEmail({ body: { email, password: PASSWORD, name: "Ben Ch" }, asResponse: true });
    if (made.status !== 200) throw new Error(`Better Auth sign-up answered ${made.status}`);
  }
  const res = await auth.api.signInEmail({ body: { email, password: PASSWORD }, asResponse: true });
  if (res.status !== 200) throw new Error(`Better Auth sign-in answered ${res.status}`);
  return cookiesOf(res);
}

const theirSession = (auth: BetterAuth, cookie: string, query?: { disableCookieCache: boolean }) =>
  auth.api.getSession({ headers: new Headers({ Cookie: cookie }), ...(query ? { query } : {}) });

function person(id: string): IdentityUser {
  return { id, email: `${id}@acme.test`, firstName: "Ben", lastName: "Ch", memberships: [] };
}

/** A KV location other than the revoking one: keeps what it read for KV's cacheTtl, by the injected clock. */
function laggingLocation(kv: KVNamespace, clock: () => number): KVNamespace {
  const cache = new Map<string, { value: unknown; until: number }>();
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "get") {
        return async (key: string, type?: "text" | "json") => {
          const id = `${type ?? "text"}:${key}`;
          const hit = cache.get(id);
          if (hit && clock() < hit.until) return hit.value;
          const value = await target.get(key, (type ?? "text") as "text");
          cache.set(id, { value, until: clock() + KV_CACHE_TTL_MS });
          return value;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

it("auth.vs_better_auth_resolve_ratio", async (ctx) => {
  // Ours: a session as the callback creates it, resolved through AuthMiddleware (auth.resolve_ratio's path).
  const ourUser = person(`user_vs_ba_${stamp}`);
  const ours = new SessionManager(env.SESSIONS, env.SESSION_SECRET);
  const { response } = await ours.createSession(ourUser);
  const ourCookie = response.headers.get("Set-Cookie")!.split(";")[0]!;
  const guarded = compose([new AuthMiddleware(ours)], (req) => new Response(currentUser(req)!.id));

  // Theirs: a real sign-up and sign-in, cookie cache off (so no session_data cookie: every call reads KV).
  const theirCookie = await theirSignIn(cacheOff, `vs_${stamp}@acme.test`);
  if (theirCookie.includes("session_data")) throw new Error("Better Auth's cookie cache is on");
  const theirUserId = (await theirSession(cacheOff, theirCookie))?.user.id;
  if (!theirUserId) throw new Error("Better Auth did not resolve its own sign-in");

  const req = (cookie: string) => new Request(ORIGIN, { headers: { Cookie: cookie } });
  const oursOnce = async () => {
    if ((await (await guarded(req(ourCookie))).text()) !== ourUser.id) throw new Error("ours lost the session");
  };
  const theirsOnce = async () => {
    const session = await cacheOff.api.getSession({ headers: req(theirCookie).headers });
    if (session?.user.id !== theirUserId) throw new Error("Better Auth lost the session");
  };

  await oursOnce();
  theirKvReads = 0;
  await theirsOnce();
  const readsPerResolve = theirKvReads;
  if (readsPerResolve < 1) throw new Error("Better Auth resolved without reading KV");

  const result = await ratio(theirsOnce, oursOnce, { batches: 60, batch: 200, warmup: 1_000 });

  await oursOnce();
  theirKvReads = 0;
  await theirsOnce();
  if (theirKvReads !== readsPerResolve) throw new Error("Better Auth changed how it resolves during the run");

  console.log(
    `resolve: Better Auth ${result.candidateMs} ms / ours ${result.baselineMs} ms per 200 ` +
      `(Better Auth: ${readsPerResolve} KV reads per resolve; ours: 1)`,
  );
  record(ctx, "auth.vs_better_auth_resolve_ratio", {
    value: result.ratio,
    unit: "x",
    goal: ">= 1.0 (cookie cache off)",
  });
});

/** Our window for one mode: the revoke at T, then the first refused instant at the lagging location. */
async function ourWindow(mode: "strict" | "eventual"): Promise<number> {
  let now = Date.now();
  const clock = () => now;
  const options = { userSessions: env.USER_SESSIONS, revocation: mode, clock };
  const here = new SessionManager(env.SESSIONS, env.SESSION_SECRET, options);
  const elsewhere = new SessionManager(laggingLocation(env.SESSIONS, clock), env.SESSION_SECRET, options);
  const userId = `user_window_${mode}_${stamp}`;
  const { response, sessionId } = await here.createSession(person(userId));
  const cookie = response.headers.get("Set-Cookie")!.split(";")[0]!;
  const request = () => new Request(ORIGIN, { headers: { Cookie: cookie } });
  const accepted = async (sessions: SessionManager) => (await sessions.resolveUser(request()))?.id === userId;

  // The other location reads the record just before the revoke (the worst case: a fresh cache entry).
  if (!(await accepted(here)) || !(await accepted(elsewhere))) throw new Error(`${mode}: the session did not resolve`);
  const revokedAt = now;
  if (!(await here.revokeSession(sessionId))) throw new Error(`${mode}: the revoke found no session`);
  // The revoking location refuses on the very next request, in both modes.
  if (await accepted(here)) throw new Error(`${mode}: the revoking location still accepted the session`);

  if (mode === "strict") {
    if (await accepted(elsewhere)) throw new Error("strict: a location serving the old record accepted it");
    return now - revokedAt;
  }
  if (!(await accepted(elsewhere))) throw new Error("eventual: the lagging location already refused at T");
  now = revokedAt + KV_CACHE_TTL_MS - 1;
  if (!(await accepted(elsewhere))) throw new Error("eventual: refused before KV's cache time");
  now = revokedAt + KV_CACHE_TTL_MS;
  if (await accepted(elsewhere)) throw new Error("eventual: still accepted after KV's cache time");
  return now - revokedAt;
}

it("auth.revoked_accepted_ms.ours_strict", async (ctx) => {
  record(ctx, "auth.revoked_accepted_ms.ours_strict", {
    value: await ourWindow("strict"),
    unit: "ms",
    goal: "reported (ours strict = 0)",
  });
});

it("auth.revoked_accepted_ms.ours_eventual", async (ctx) => {
  record(ctx, "auth.revoked_accepted_ms.ours_eventual", {
    value: await ourWindow("eventual"),
    unit: "ms",
    goal: "reported (ours strict = 0)",
  });
});

/** The `expiresAt` (ms) inside a compact-strategy `session_data` cookie. */
function cookieCacheExpiry(cookie: string): number {
  const pair = cookie.split("; ").find((c) => /^(__Secure-)?better-auth\.session_data=/.test(c));
  const value = pair?.slice(pair.indexOf("=") + 1);
  if (!value) throw new Error("no session_data cookie: the cookie cache is off");
  const json = atob(decodeURIComponent(value).replaceAll("-", "+").replaceAll("_", "/"));
  const expiresAt = (JSON.parse(json) as { expiresAt?: unknown }).expiresAt;
  if (typeof expiresAt !== "number") throw new Error("session_data carries no expiresAt");
  return expiresAt;
}

it("auth.revoked_accepted_ms.better_auth_cookie_cache", async (ctx) => {
  const email = `window_${stamp}@acme.test`;
  vi.useFakeTimers({ toFake: ["Date"] });
  const revokedAt = Date.now();
  vi.setSystemTime(revokedAt);
  // Device A and device B sign in at T; B revokes A's session at T.
  const deviceA = await theirSignIn(cacheOn, email);
  const deviceB = await theirSignIn(cacheOn, email, false);
  const session = await theirSession(cacheOn, deviceA, { disableCookieCache: true });
  if (!session) throw new Error("Better Auth did not resolve device A");
  const userId = session.user.id;
  const expiresAt = cookieCacheExpiry(deviceA);
  if (expiresAt !== revokedAt + COOKIE_CACHE_MAX_AGE_S * 1000) throw new Error("unexpected cookie cache expiry");

  const revoked = await cacheOn.api.revokeSession({
    body: { token: session.session.token },
    headers: new Headers({ Cookie: deviceB }),
  });
  if (!revoked.status) throw new Error("Better Auth did not revoke");
  // Revoked on the server: the session itself is gone from KV.
  if (await theirSession(cacheOn, deviceA, { disableCookieCache: true })) throw new Error("revoke left the session");

  const accepted = async (at: number) => {
    vi.setSystemTime(at);
    return (await theirSession(cacheOn, deviceA))?.user.id === userId;
  };
  if (!(await accepted(revokedAt))) throw new Error("device A was refused at once: no cookie cache window");
  if (!(await accepted(expiresAt))) throw new Error("device A was refused before its cache cookie's expiry");
  if (await accepted(expiresAt + 1)) throw new Error("device A was still accepted after its cache cookie's expiry");

  record(ctx, "auth.revoked_accepted_ms.better_auth_cookie_cache", {
    value: expiresAt + 1 - revokedAt,
    unit: "ms",
    goal: "reported (ours strict = 0)",
  });
});
