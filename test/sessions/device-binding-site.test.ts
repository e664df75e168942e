/**
 * Device binding for every app of the team (issue 30): with `cookie.domain`, the session cookie and
 * the bound cookie reach every host of the site, so the DBSC session must cover them too
 * (`include_site: true`, origin the site). The answers are checked by the spec's "create session"
 * as a browser runs it (dbsc-create-session.ts, written from the W3C text and Chrome's refusals),
 * including the well-known fetch a subdomain's registration triggers; the auth worker's own
 * `/.well-known/device-bound-sessions` answers it where the apex is routed to it. Without a domain
 * the scope stays host-only. Real local KV and `UserSessions`; the clock is injected.
 */
import { env, exports } from "cloudflare:workers";
import { Application } from "gatehouse-workers";
import {
  AuthServiceProvider,
  deviceBoundSessionsWellKnown,
  SessionManager,
  type SessionManagerOptions,
} from "gatehouse-workers/auth";
import { SecurityHeadersMiddleware } from "gatehouse-workers/security-headers";
import { FakeIdentityClient } from "gatehouse-workers/testing";
import { describe, expect, it } from "vitest";
import { DbscClient, registrationRequestHeaders } from "./dbsc-client";
import { createSession, inScope, WELL_KNOWN_PATH } from "./dbsc-create-session";
import { freshUser, identity, ORIGIN } from "./helpers";

const SITE = "example.com";
const REGISTER_URL = `${ORIGIN}/auth/dbsc/register`;
const ON: Partial<SessionManagerOptions> = { deviceBinding: "opportunistic", cookie: { domain: SITE } };

function app(userId: string, session: Partial<SessionManagerOptions> = ON) {
  const fake = new FakeIdentityClient({ users: [identity(userId)], synthetic: false });
  let now = Date.now();
  const clock = { advance: (ms: number) => (now += ms), fn: () => now };
  // Composed as the deployed worker is: the hardening middleware first, then the auth provider.
  const built = Application.create(env, {
    middleware: [new SecurityHeadersMiddleware()],
    providers: [
      new AuthServiceProvider({
        identityClient: fake,
        redirectUrl: `${ORIGIN}/auth/callback`,
        session: { clock: clock.fn, userSessions: env.USER_SESSIONS, ...session },
      }),
    ],
  });
  return { app: built, fake, clock, sessions: built.container.resolve(SessionManager) };
}

type Ctx = ReturnType<typeof app>;
type Jar = Record<string, string>;

function take(res: Response, jar: Jar): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair!.indexOf("=");
    if (/Max-Age=0/i.test(line)) delete jar[pair!.slice(0, eq)];
    else jar[pair!.slice(0, eq)] = pair!.slice(eq + 1);
  }
}

const cookieHeader = (jar: Jar) =>
  Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");

/** Signs in, then registers a fresh ES256 key the way Chrome does; the registration answer. */
async function signInAndRegister(ctx: Ctx, userId: string) {
  const jar: Jar = {};
  const start = await ctx.app.fetch(new Request(`${ORIGIN}/auth/login`));
  take(start, jar);
  const authorize = new URL(start.headers.get("Location")!);
  const code = ctx.fake.issueCode(userId, { codeChallenge: authorize.searchParams.get("code_challenge")! });
  const callback = await ctx.app.fetch(
    new Request(`${ORIGIN}/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`, {
      headers: { Cookie: cookieHeader(jar) },
    }),
  );
  take(callback, jar);
  const sessionId = (await ctx.sessions.resolveCookieHeader(cookieHeader(jar)))!.sessionId;
  const offer = callback.headers.get("Secure-Session-Registration") ?? "";
  const challenge = /challenge="([^"]+)"/.exec(offer)![1]!;
  const device = await DbscClient.create("ES256");
  const headers = registrationRequestHeaders(await device.registrationProof(challenge), "chrome");
  headers.set("Cookie", cookieHeader(jar));
  const registered = await ctx.app.fetch(new Request(REGISTER_URL, { method: "POST", headers }));
  return { jar, device, sessionId, registered, body: await registered.clone().text() };
}

interface Instructions {
  session_identifier: string;
  refresh_url: string;
  scope: Record<string, unknown>;
  credentials: { type: string; name: string; attributes: string }[];
}

describe("device binding with cookie.domain: one DBSC session for every app of the site", () => {
  it("registration names the site with include_site, and the bound cookie matches its credential", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { registered, body, sessionId } = await signInAndRegister(ctx, userId);
    expect(registered.status).toBe(200);
    const config = JSON.parse(body) as Instructions;
    expect(config.session_identifier).toBe(sessionId);
    // A bare origin: no path, no trailing slash (Chrome's kScopeOriginContainsPath).
    expect(config.scope).toEqual({ origin: "https://example.com", include_site: true });
    expect(config.refresh_url).toBe("/auth/dbsc/refresh");
    const attributes = "Domain=example.com; Path=/; Secure; HttpOnly; SameSite=Lax";
    expect(config.credentials).toEqual([{ type: "cookie", name: "__Secure-gh_session_dbsc", attributes }]);
    const bound = registered.headers.getSetCookie().find((c) => c.startsWith("__Secure-gh_session_dbsc="));
    expect(bound).toMatch(new RegExp(`^__Secure-gh_session_dbsc=[^;]+; ${attributes}; Max-Age=600$`));
  });

  it("a browser accepts it after the site's well-known (served by the auth worker) lists the auth origin", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { body } = await signInAndRegister(ctx, userId);
    const fetched: string[] = [];
    const result = await createSession({
      destination: REGISTER_URL,
      body,
      registrableDomain: SITE,
      // The apex's /.well-known/device-bound-sessions is routed to the auth worker; no cookies go.
      fetchWellKnown: (url) => {
        fetched.push(url);
        return ctx.app.fetch(new Request(url));
      },
    });
    if (!result.ok) throw new Error(result.reason);
    expect(fetched).toEqual([`https://${SITE}${WELL_KNOWN_PATH}`]);
    const { session } = result;
    // The refresh URL resolves against the registration URL: the auth worker's origin.
    expect(session.refreshUrl).toBe(`${ORIGIN}/auth/dbsc/refresh`);
    expect(inScope(session, "https://app.example.com/dashboard", SITE)).toBe(true);
    expect(inScope(session, "https://example.com/", SITE)).toBe(true);
    expect(inScope(session, "https://app.example.net/", SITE)).toBe(false);
    expect(inScope(session, `${ORIGIN}/auth/dbsc/refresh`, SITE)).toBe(false);
  });

  it("where the apex answers no well-known, the browser refuses the site-wide session (the documented limit)", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { body } = await signInAndRegister(ctx, userId);
    const notRouted = await createSession({
      destination: REGISTER_URL,
      body,
      registrableDomain: SITE,
      fetchWellKnown: async () => new Response("not here", { status: 404 }),
    });
    expect(notRouted).toEqual({ ok: false, reason: "well-known answered 404" });
    // An apex worker serving the exported builder's document for another auth origin does not help either.
    const elsewhere = await createSession({
      destination: REGISTER_URL,
      body,
      registrableDomain: SITE,
      fetchWellKnown: async () =>
        Response.json(deviceBoundSessionsWellKnown({ registeringOrigins: ["https://login.example.com"] })),
    });
    expect(elsewhere).toEqual({ ok: false, reason: "registration origin not registering" });
  });

  it("a refresh answer keeps the site scope", async () => {
    const userId = freshUser();
    const ctx = app(userId);
    const { jar, device, sessionId, registered } = await signInAndRegister(ctx, userId);
    take(registered, jar);
    ctx.clock.advance(11 * 60 * 1000);
    const refresh = (proof?: string) => {
      const headers = new Headers({ "Sec-Secure-Session-Id": sessionId, Cookie: cookieHeader(jar) });
      if (proof) headers.set("Secure-Session-Response", proof);
      return ctx.app.fetch(new Request(`${ORIGIN}/auth/dbsc/refresh`, { method: "POST", headers }));
    };
    const asked = await refresh();
    const challenge = /^"([^"]+)"/.exec(asked.headers.get("Secure-Session-Challenge") ?? "")![1]!;
    const renewed = await refresh(await device.refreshProof(challenge));
    expect(renewed.status).toBe(200);
    expect(((await renewed.json()) as Instructions).scope).toEqual({
      origin: "https://example.com",
      include_site: true,
    });
  });

  it("the well-known route: JSON from configuration (not the Host), public, cookie-free, hardened", async () => {
    const ctx = app(freshUser());
    for (const host of ["https://example.com", ORIGIN, "https://evil.example.net"]) {
      const res = await ctx.app.fetch(
        new Request(`${host}${WELL_KNOWN_PATH}`, { headers: { Cookie: "__Secure-gh_session=whatever" } }),
      );
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
      expect(res.headers.get("Cache-Control")).toBe("public, max-age=3600");
      expect(res.headers.getSetCookie()).toEqual([]);
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(await res.json()).toEqual({ registering_origins: [ORIGIN], relying_origins: [] });
    }
  });

  it("deviceBindingSite names the site when the cookie's domain lies below it", async () => {
    const userId = freshUser();
    const ctx = app(userId, {
      ...ON,
      cookie: { domain: "apps.example.com" },
      deviceBindingSite: "https://example.com",
    });
    const { body } = await signInAndRegister(ctx, userId);
    const config = JSON.parse(body) as Instructions;
    expect(config.scope).toEqual({ origin: "https://example.com", include_site: true });
    expect(config.credentials[0]!.attributes).toBe("Domain=apps.example.com; Path=/; Secure; HttpOnly; SameSite=Lax");
  });

  it("refuses a site Chrome would refuse, or one that does not cover the cookie, naming the option", () => {
    const bad: [Partial<SessionManagerOptions>, RegExp][] = [
      [{ deviceBindingSite: "https://example.com/" }, /bare https origin/],
      [{ deviceBindingSite: "http://example.com" }, /bare https origin/],
      [{ deviceBindingSite: "https://other.example.net" }, /does not cover cookie.domain/],
      [{ deviceBindingSite: "https://app.example.com" }, /does not cover cookie.domain/],
      [{ cookie: { domain: "localhost" } }, /must name a site/],
      [{ cookie: { domain: SITE, secure: false } }, /needs https/],
      [{ cookie: {}, deviceBindingSite: "https://example.com" }, /needs cookie.domain/],
    ];
    for (const [options, message] of bad) {
      expect(() => app(freshUser(), { ...ON, ...options }).sessions, JSON.stringify(options)).toThrow(message);
    }
  });
});

describe("device binding without a cookie domain: host-only, as before", () => {
  it("the scope names no origin and no site; the browser fetches no well-known", async () => {
    const userId = freshUser();
    const ctx = app(userId, { deviceBinding: "opportunistic" });
    const { body } = await signInAndRegister(ctx, userId);
    const config = JSON.parse(body) as Instructions;
    expect(config.scope).toEqual({ include_site: false });
    expect(config.credentials[0]!.attributes).toBe("Path=/; Secure; HttpOnly; SameSite=Lax");
    const result = await createSession({
      destination: REGISTER_URL,
      body,
      registrableDomain: SITE,
      fetchWellKnown: () => Promise.reject(new Error("no well-known for a host-only session")),
    });
    if (!result.ok) throw new Error(result.reason);
    expect(result.session).toMatchObject({ origin: ORIGIN, includeSite: false, wellKnownFetched: null });
    expect(inScope(result.session, "https://app.example.com/", SITE)).toBe(false);
  });
});

describe("device binding off: no well-known", () => {
  it("an application without binding, and the deployed worker, answer 404", async () => {
    const ctx = app(freshUser(), {});
    expect((await ctx.app.fetch(new Request(`https://example.com${WELL_KNOWN_PATH}`))).status).toBe(404);
    expect((await exports.default.fetch(`${ORIGIN}${WELL_KNOWN_PATH}`)).status).toBe(404);
  });
});
