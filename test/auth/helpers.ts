/**
 * Shared fixtures for the auth tests: demo identities, an injectable clock,
 * a KV namespace that counts the writes made to the real local binding, and
 * an Application wired with AuthServiceProvider over a FakeIdentityClient.
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

export const SECRET = env.SESSION_SECRET;
export const REDIRECT_URL = "https://auth.example.com/auth/callback";
export const ORIGIN = "https://auth.example.com";

export const ada: IdentityUser = {
  id: "user_ada",
  email: "ada@acme.test",
  firstName: "Ada",
  lastName: "Lovelace",
  memberships: [
    { organizationId: "org_acme", organizationSlug: "acme", role: "admin" },
    { organizationId: "org_globex", organizationSlug: "globex", role: "member" },
  ],
};

export const bob: IdentityUser = {
  id: "user_bob",
  email: "bob@acme.test",
  firstName: "Bob",
  lastName: "Builder",
  memberships: [{ organizationId: "org_acme", organizationSlug: "acme", role: "member" }],
};

export class TestClock {
  constructor(public now = Date.UTC(2026, 10, 22, 12, 0, 0)) {}
  readonly fn = () => this.now;
  advance(seconds: number): void {
    this.now += seconds * 1000;
  }
}

/** The real local KV binding, with its writes counted. */
export function countingKV(kv: KVNamespace = env.SESSIONS): KVNamespace & { writes: number; deletes: number } {
  const counter = {
    writes: 0,
    deletes: 0,
    get: kv.get.bind(kv),
    getWithMetadata: kv.getWithMetadata.bind(kv),
    list: kv.list.bind(kv),
    put(...args: Parameters<KVNamespace["put"]>) {
      counter.writes++;
      return kv.put(...args);
    },
    delete(key: string) {
      counter.deletes++;
      return kv.delete(key);
    },
  };
  return counter as unknown as KVNamespace & { writes: number; deletes: number };
}

export function makeSessions(options: SessionManagerOptions = {}, kv: KVNamespace = env.SESSIONS): SessionManager {
  return new SessionManager(kv, SECRET, options);
}

export function makeApp(options: { clock?: TestClock; session?: SessionManagerOptions } = {}) {
  // Issued codes only: a synthetic FakeIdentityClient signs anyone in and needs a loopback redirect URL.
  const fake = new FakeIdentityClient({ users: [ada, bob], synthetic: false });
  const clock = options.clock ?? new TestClock();
  const app = Application.create(env, {
    providers: [
      new AuthServiceProvider({
        identityClient: fake,
        redirectUrl: REDIRECT_URL,
        session: { clock: clock.fn, ...options.session },
      }),
    ],
  });
  return { app, fake, clock, sessions: app.container.resolve(SessionManager) };
}

/** Cookie header built from a response's Set-Cookie values (name=value pairs, deletions dropped). */
export function cookiesFrom(res: Response, jar: Record<string, string> = {}): Record<string, string> {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair!.indexOf("=");
    const name = pair!.slice(0, eq);
    const value = pair!.slice(eq + 1);
    if (/Max-Age=0/i.test(line)) delete jar[name];
    else jar[name] = value;
  }
  return jar;
}

export function cookieHeader(jar: Record<string, string>): string {
  return Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");
}

/** Runs a full login through the app's routes and returns the cookie jar and the final response. */
export async function login(
  ctx: ReturnType<typeof makeApp>,
  userId: string,
  options: { returnTo?: string; organizationId?: string } = {},
) {
  const jar: Record<string, string> = {};
  const qs = new URLSearchParams();
  if (options.returnTo) qs.set("return_to", options.returnTo);
  const start = await ctx.app.fetch(new Request(`${ORIGIN}/auth/login?${qs}`));
  cookiesFrom(start, jar);
  const authorize = new URL(start.headers.get("Location")!);
  const code = ctx.fake.issueCode(userId, {
    codeChallenge: authorize.searchParams.get("code_challenge")!,
    ...(options.organizationId ? { organizationId: options.organizationId } : {}),
  });
  const callback = await ctx.app.fetch(
    new Request(`${ORIGIN}/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar) },
    }),
  );
  cookiesFrom(callback, jar);
  return { jar, start, callback, authorize };
}
