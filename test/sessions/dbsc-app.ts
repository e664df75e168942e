/**
 * Fixtures for device binding through the auth routes (issue 30): an application with
 * `AuthServiceProvider` over the real local KV and `UserSessions`, the fake identity client, an
 * injectable clock, a cookie jar, and the DBSC routes driven by the reference client
 * (dbsc-client.ts) as the browser.
 */
import { env } from "cloudflare:workers";
import { Application } from "gatehouse-workers";
import {
  AuthServiceProvider,
  type IdentityUser,
  SessionManager,
  type SessionManagerOptions,
} from "gatehouse-workers/auth";
import { FakeIdentityClient } from "gatehouse-workers/testing";
import { type DbscClient, refreshRequestHeaders, registrationRequestHeaders } from "./dbsc-client";
import { identity, ORIGIN } from "./helpers";

export const REDIRECT_URL = `${ORIGIN}/auth/callback`;
export const SESSION_COOKIE = "__Host-gh_session";
export const BOUND_COOKIE = "__Host-gh_session_dbsc";

export class Clock {
  now = Date.now();
  readonly fn = () => this.now;
}

export function app(
  userId: string,
  session: Partial<SessionManagerOptions> = { deviceBinding: "opportunistic" },
  user: IdentityUser = identity(userId),
) {
  const fake = new FakeIdentityClient({ users: [user], synthetic: false });
  const clock = new Clock();
  const built = Application.create(env, {
    providers: [
      new AuthServiceProvider({
        identityClient: fake,
        redirectUrl: REDIRECT_URL,
        session: { clock: clock.fn, userSessions: env.USER_SESSIONS, ...session },
      }),
    ],
  });
  return { app: built, fake, clock, sessions: built.container.resolve(SessionManager) };
}

export type Ctx = ReturnType<typeof app>;
export type Jar = Record<string, string>;

/** Keeps the response's cookies in the jar (a `Max-Age=0` one leaves it). */
export function take(res: Response, jar: Jar): Jar {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair!.indexOf("=");
    if (/Max-Age=0/i.test(line)) delete jar[pair!.slice(0, eq)];
    else jar[pair!.slice(0, eq)] = pair!.slice(eq + 1);
  }
  return jar;
}

export const header = (jar: Jar) =>
  Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");

let addresses = 0;

/** Signs in through `/auth/login` and the callback (from an address of its own: the login route is rate-limited per address); the jar holds the session cookie. */
export async function signIn(ctx: Ctx, userId: string) {
  const jar: Jar = {};
  addresses++;
  const address = `198.51.${Math.floor(addresses / 250) % 250}.${(addresses % 250) + 1}`;
  const start = await ctx.app.fetch(new Request(`${ORIGIN}/auth/login`, { headers: { "CF-Connecting-IP": address } }));
  take(start, jar);
  const authorize = new URL(start.headers.get("Location")!);
  const code = ctx.fake.issueCode(userId, { codeChallenge: authorize.searchParams.get("code_challenge")! });
  const callback = await ctx.app.fetch(
    new Request(`${REDIRECT_URL}?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: header(jar), "CF-Connecting-IP": address },
    }),
  );
  take(callback, jar);
  // Not resolved: a session whose role must bind does not resolve until it has.
  const sessionId = (await ctx.sessions.sessionIdFromCookieHeader(header(jar)))!;
  return { jar, callback, sessionId };
}

export function challengeOf(value: string | null, param = "challenge"): string {
  const match = new RegExp(`${param}="([^"]+)"`).exec(value ?? "") ?? /^"([^"]+)"/.exec(value ?? "");
  if (!match) throw new Error(`no challenge in ${value}`);
  return match[1]!;
}

export async function register(ctx: Ctx, jar: Jar, client: DbscClient, challenge: string) {
  const headers = registrationRequestHeaders(await client.registrationProof(challenge), "chrome");
  headers.set("Cookie", header(jar));
  return ctx.app.fetch(new Request(`${ORIGIN}/auth/dbsc/register`, { method: "POST", headers }));
}

export function refresh(ctx: Ctx, sessionId: string, proof: string | null, jar: Jar = {}) {
  const headers = refreshRequestHeaders(sessionId, proof, "chrome");
  if (Object.keys(jar).length) headers.set("Cookie", header(jar));
  return ctx.app.fetch(new Request(`${ORIGIN}/auth/dbsc/refresh`, { method: "POST", headers }));
}

export const resolves = async (ctx: Ctx, jar: Jar) => (await ctx.sessions.resolveCookieHeader(header(jar))) !== null;

/** Signs in and binds an ES256 key through the routes; the jar then holds both cookies. */
export async function boundSession(ctx: Ctx, userId: string, device: DbscClient) {
  const signed = await signIn(ctx, userId);
  const offer = signed.callback.headers.get("Secure-Session-Registration");
  take(await register(ctx, signed.jar, device, challengeOf(offer)), signed.jar);
  return signed;
}
