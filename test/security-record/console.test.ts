/**
 * The admin console (issue 19) against the real auth worker and its objects: the gate, a
 * break-glass session opened with an admin token (15 minutes at most, marked on every page,
 * recorded), a signed-in admin of an operators' organization (recent sign-in required, never an
 * impersonation, never an admin of another organization), search by email or id, a person's
 * sessions with devices and places, timeline, receipts and webhook deliveries, and the three
 * revocations, each answered with its receipt and recorded on the person's timeline and the
 * console's own. Forms post with the CSRF token and fail without it.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BREAK_GLASS_SECONDS, BreakGlassSessions } from "../../workers/auth/admin/console/break-glass";
import type { IdentityUser } from "../../workers/auth/types";
import {
  allEvents,
  BERLIN,
  eventually,
  FIREFOX_140_MAC,
  freshAddress,
  freshOrg,
  freshUser,
  manager,
  ORIGIN,
  SAFARI_IPHONE,
  signIn,
  stubOf,
} from "./helpers";

const OPS = "org_console_ops";

/** A browser: keeps its cookies, sends them, reads the CSRF field of the last page. */
class Browser {
  readonly cookies = new Map<string, string>();
  readonly ip = freshAddress();
  csrf = "";

  async get(path: string): Promise<Response> {
    const res = await exports.default.fetch(`${ORIGIN}${path}`, {
      headers: { Cookie: this.#cookie(), Accept: "text/html", "CF-Connecting-IP": this.ip },
      redirect: "manual",
    });
    this.#keep(res);
    return res;
  }

  async page(path: string): Promise<{ status: number; html: string; res: Response }> {
    const res = await this.get(path);
    const html = await res.text();
    const field = /name="_csrf" value="([^"]+)"/.exec(html);
    if (field) this.csrf = field[1]!;
    return { status: res.status, html, res };
  }

  async post(path: string, fields: Record<string, string> = {}, options: { csrf?: boolean } = {}): Promise<Response> {
    const body = new URLSearchParams({ ...(options.csrf === false ? {} : { _csrf: this.csrf }), ...fields });
    const res = await exports.default.fetch(`${ORIGIN}${path}`, {
      method: "POST",
      headers: {
        Cookie: this.#cookie(),
        Accept: "text/html",
        Origin: ORIGIN,
        "Content-Type": "application/x-www-form-urlencoded",
        "CF-Connecting-IP": this.ip,
      },
      body,
      redirect: "manual",
    });
    this.#keep(res);
    return res;
  }

  #cookie(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  #keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const [name, value] = [pair!.slice(0, eq), pair!.slice(eq + 1)];
      if (value === "" || /Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

async function breakGlass(): Promise<Browser> {
  const browser = new Browser();
  await browser.page("/admin");
  const opened = await browser.post("/admin/console/break-glass", { token: env.ADMIN_API_TOKEN });
  expect(opened.status).toBe(303);
  return browser;
}

function operatorIdentity(id: string, role: string, organizationId = OPS): IdentityUser {
  return {
    id,
    email: `${id}@ops.test`,
    firstName: "Op",
    lastName: id,
    memberships: [{ organizationId, organizationSlug: organizationId.replaceAll("_", "-"), role }],
  };
}

describe("the gate", () => {
  it("without a session: a sign-in link and the break-glass form, nothing of anyone's data", async () => {
    const browser = new Browser();
    const { status, html, res } = await browser.page("/admin");
    expect(status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    expect(res.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
    expect(html).toContain('href="/auth/login?return_to=%2Fadmin"');
    expect(html).toContain('<label for="token">Admin token</label>');
    expect(html).not.toContain("Find a person");
    // The console's other pages send a visitor back to the gate; its forms refuse.
    expect((await browser.get("/admin/console/users/user_x")).headers.get("Location")).toBe("/admin");
    expect((await browser.post(`/admin/console/users/${freshUser()}/revoke`)).status).toBe(401);
  });

  it("a visit to /admin spends one unit of the admin route limit, not two", async () => {
    const browser = new Browser();
    const remaining = async () =>
      Number(/r=(\d+)/.exec((await browser.get("/admin")).headers.get("RateLimit") ?? "")?.[1]);
    const first = await remaining();
    expect(first).toBeGreaterThan(0);
    expect(await remaining()).toBe(first - 1);
  });

  it("the JSON admin API beside it still needs its bearer token", async () => {
    const res = await exports.default.fetch(`${ORIGIN}/admin/users/${freshUser()}/sessions`, {
      headers: { "CF-Connecting-IP": freshAddress() },
    });
    expect(res.status).toBe(401);
  });
});

describe("break glass", () => {
  it("a wrong token opens nothing; a form without its CSRF token is refused", async () => {
    const browser = new Browser();
    await browser.page("/admin");
    const wrong = await browser.post("/admin/console/break-glass", { token: `${env.ADMIN_API_TOKEN}x` });
    expect(wrong.status).toBe(403);
    expect(wrong.headers.getSetCookie().some((c) => c.includes("gh_console"))).toBe(false);
    const noCsrf = await browser.post("/admin/console/break-glass", { token: env.ADMIN_API_TOKEN }, { csrf: false });
    expect(noCsrf.status).toBe(403);
    expect(await noCsrf.text()).toContain("csrf_failed");
    expect(browser.cookies.has("__Secure-gh_console")).toBe(false);
  });

  it("the admin token opens a 15-minute session, marked on every page and recorded; ending it closes the console", async () => {
    const browser = new Browser();
    await browser.page("/admin");
    const opened = await browser.post("/admin/console/break-glass", { token: env.ADMIN_API_TOKEN });
    expect(opened.status).toBe(303);
    const cookie = opened.headers.getSetCookie().find((c) => c.startsWith("__Secure-gh_console="))!;
    expect(cookie).toMatch(/Max-Age=900/);
    expect(cookie).toMatch(/Path=\/admin/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const home = await browser.page("/admin");
    expect(home.html).toContain("Break-glass session");
    expect(home.html).toContain("Find a person");
    expect(home.html).toMatch(/break-glass:admin opened a break-glass session/);
    const user = freshUser();
    await signIn(manager(), user);
    const person = await browser.page(`/admin/console/users/${user}`);
    expect(person.html).toContain("Break-glass session");

    expect((await browser.post("/admin/console/sign-out")).status).toBe(303);
    const after = await browser.page("/admin");
    expect(after.html).toContain("Admin token");
    expect(after.html).not.toContain("Find a person");
    const log = await (await breakGlass()).page("/admin");
    expect(log.html).toMatch(/break-glass:admin ended a break-glass session/);
  });

  it("ends at 15 minutes whatever the cookie says (injected clock, the real KV)", async () => {
    let now = 1_800_000_000_000;
    const glass = new BreakGlassSessions(env.SESSIONS, { clock: () => now, secure: true });
    const { setCookie, session } = await glass.open("secops");
    expect(session.expiresAt - session.openedAt).toBe(BREAK_GLASS_SECONDS * 1000);
    const request = new Request(`${ORIGIN}/admin`, { headers: { Cookie: setCookie.split(";")[0]! } });
    now += BREAK_GLASS_SECONDS * 1000 - 1;
    expect((await glass.current(request))?.label).toBe("secops");
    now += 1;
    expect(await glass.current(request)).toBeNull();
  });
});

describe("a signed-in operator", () => {
  it("an admin of an operators' organization with a recent sign-in gets the console", async () => {
    const sessions = manager();
    const id = freshUser();
    const { response } = await sessions.createSession(operatorIdentity(id, "admin"), OPS);
    const browser = new Browser();
    const [name, value] = response.headers.get("Set-Cookie")!.split(";")[0]!.split("=") as [string, string];
    browser.cookies.set(name, value);
    const home = await browser.page("/admin");
    expect(home.status).toBe(200);
    expect(home.html).toContain(`Operating as ${id}@ops.test`);
    expect(home.html).not.toContain("Break-glass session");
  });

  it("an old sign-in goes through the provider again first; an impersonation and an admin elsewhere are refused", async () => {
    const sessions = manager();
    const cookieOf = (res: Response) => res.headers.get("Set-Cookie")!.split(";")[0]!.split("=") as [string, string];

    const old = new Browser();
    const hourAgo = Date.now() - 3_600_000;
    const stale = await sessions.createSession(
      operatorIdentity(freshUser(), "admin"),
      OPS,
      {},
      { authenticatedAt: hourAgo },
    );
    old.cookies.set(...cookieOf(stale.response));
    const res = await old.get("/admin");
    expect(res.status).toBe(302);
    const login = new URL(res.headers.get("Location")!, ORIGIN);
    expect(login.pathname).toBe("/auth/login");
    expect(login.searchParams.get("return_to")).toBe("/admin");
    expect(login.searchParams.get("max_age")).toBe("300");

    const impersonated = new Browser();
    const as = await sessions.createSession(
      operatorIdentity(freshUser(), "admin"),
      OPS,
      {},
      {
        impersonator: { email: "support@ops.test", reason: null },
      },
    );
    impersonated.cookies.set(...cookieOf(as.response));
    const refused = await impersonated.page("/admin");
    expect(refused.status).toBe(403);
    expect(refused.html).toContain("impersonation_forbidden");

    const elsewhere = new Browser();
    const other = freshOrg();
    const admin = await sessions.createSession(operatorIdentity(freshUser(), "admin", other), other);
    elsewhere.cookies.set(...cookieOf(admin.response));
    expect((await elsewhere.page("/admin")).status).toBe(403);
    const member = new Browser();
    const plain = await sessions.createSession(operatorIdentity(freshUser(), "member"), OPS);
    member.cookies.set(...cookieOf(plain.response));
    expect((await member.page("/admin")).status).toBe(403);
    expect((await member.post(`/admin/console/users/${freshUser()}/revoke`)).status).toBe(403);
  });
});

describe("a person's page and the revocations", () => {
  it("finds a person by email or id; shows sessions with device and place, the timeline and the deliveries", async () => {
    const browser = await breakGlass();
    const user = freshUser();
    await signIn(manager(), user, { userAgent: FIREFOX_140_MAC, location: BERLIN });
    const byEmail = await browser.get(
      `/admin/console/search?q=${encodeURIComponent(`${user.toUpperCase()}@ACME.TEST`)}`,
    );
    expect(byEmail.status).toBe(303);
    expect(byEmail.headers.get("Location")).toBe(`/admin/console/users/${user}`);
    expect((await browser.get(`/admin/console/search?q=${user}`)).headers.get("Location")).toBe(
      `/admin/console/users/${user}`,
    );
    expect((await browser.get("/admin/console/search?q=nobody%40nowhere.test")).headers.get("Location")).toBe(
      "/admin?notice=not-found",
    );
    // The webhook delivery of the sign-in event, made by the object's alarm.
    const page = await eventually(async () => {
      const p = await browser.page(`/admin/console/users/${user}`);
      return /delivered \(attempt 1\)/.test(p.html) ? p : null;
    });
    expect(page.html).toContain("Firefox 140 on macOS");
    expect(page.html).toContain("Berlin, DE (TXL)");
    expect(page.html).toContain("Signed in");
    expect(page.html).toMatch(/session\.signed_in|signed in/i);
    expect(page.html).toContain('<script src="/admin/console.js" defer></script>');
  });

  it("marks a device-bound session in words, and the timeline says it was bound; an unbound one has no marker", async () => {
    const browser = await breakGlass();
    const sessions = manager();
    const user = freshUser();
    const laptop = await signIn(sessions, user, { userAgent: FIREFOX_140_MAC });
    const phone = await signIn(sessions, user, { userAgent: SAFARI_IPHONE });
    const stub = stubOf(user);
    const issued = await stub.bindingChallenge(phone.sessionId, "registration");
    const jwk = { kty: "EC", crv: "P-256", x: "x".repeat(43), y: "y".repeat(43) } as const;
    expect(await stub.bindDevice(phone.sessionId, issued!.challenge, { jwk, alg: "ES256", thumbprint: "t" })).toBe(
      "bound",
    );
    const page = await browser.page(`/admin/console/users/${user}`);
    const row = (id: string) => new RegExp(`<tr data-session-id="${id}">[\\s\\S]*?</tr>`).exec(page.html)?.[0] ?? "";
    expect(row(phone.sessionId)).toContain("(device-bound)");
    expect(row(laptop.sessionId)).not.toContain("device-bound");
    expect(page.html).toContain("A session was bound to its device&#39;s key");
  });

  it("signs out one session: the receipt is shown, the session is refused, both timelines say who", async () => {
    const browser = await breakGlass();
    const sessions = manager();
    const user = freshUser();
    const laptop = await signIn(sessions, user, { userAgent: FIREFOX_140_MAC });
    const phone = await signIn(sessions, user, { userAgent: SAFARI_IPHONE });
    await browser.page(`/admin/console/users/${user}`);
    const revoked = await browser.post(`/admin/console/users/${user}/sessions/${phone.sessionId}/revoke`);
    expect(revoked.status).toBe(303);
    const receiptUrl = revoked.headers.get("Location")!;
    expect(receiptUrl).toMatch(new RegExp(`^/admin/console/receipts/rcpt\\.u\\.${user}\\.\\d+$`));
    const receipt = await browser.page(receiptUrl);
    expect(receipt.html).toMatch(/<dt>Sessions signed out<\/dt><dd>1<\/dd>/);
    expect(receipt.html).toContain("break-glass:admin");

    const check = (cookie: string) =>
      sessions.resolveSession(new Request(`${ORIGIN}/`, { headers: { Cookie: cookie } }));
    expect(await check(phone.cookie)).toBeNull();
    expect(await check(laptop.cookie)).not.toBeNull();
    const events = await allEvents(user);
    const event = events.find((e) => e.type === "session.revoked" && e.sessionId === phone.sessionId);
    expect(event?.actor).toEqual({ kind: "admin", label: "break-glass:admin" });
    const home = await browser.page("/admin");
    expect(home.html).toContain(`signed out a session of <a href="/admin/console/users/${user}">`);

    // A session that is not live any more: 404, nothing else signed out.
    await browser.page(`/admin/console/users/${user}`);
    expect((await browser.post(`/admin/console/users/${user}/sessions/${phone.sessionId}/revoke`)).status).toBe(404);
    expect(await check(laptop.cookie)).not.toBeNull();
  });

  it("signs out every session of a person, and ends an organization's sessions, each with its receipt", async () => {
    const browser = await breakGlass();
    const sessions = manager();
    const user = freshUser();
    const org = freshOrg();
    const a = await signIn(sessions, user, { organizations: [org] });
    const b = await signIn(sessions, user, { organizations: [org] });
    await browser.page(`/admin/console/users/${user}`);
    const all = await browser.post(`/admin/console/users/${user}/revoke`);
    expect(all.status).toBe(303);
    const receipt = await browser.page(all.headers.get("Location")!);
    expect(receipt.html).toMatch(/<dt>Sessions signed out<\/dt><dd>2<\/dd>/);
    for (const s of [a, b]) {
      expect(await sessions.resolveSession(new Request(`${ORIGIN}/`, { headers: { Cookie: s.cookie } }))).toBeNull();
    }

    const member = freshUser();
    const m = await signIn(sessions, member, { organizations: [org] });
    await browser.page("/admin");
    const ended = await browser.post("/admin/console/organizations/end", { organizationId: org });
    expect(ended.status).toBe(303);
    expect(ended.headers.get("Location")).toMatch(new RegExp(`^/admin/console/receipts/rcpt\\.o\\.${org}\\.\\d+$`));
    expect(await sessions.resolveSession(new Request(`${ORIGIN}/`, { headers: { Cookie: m.cookie } }))).toBeNull();
    await browser.page("/admin");
    const bad = await browser.post("/admin/console/organizations/end", { organizationId: "<script>" });
    expect(bad.status).toBe(400);
  });
});
