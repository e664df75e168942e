import { env } from "cloudflare:workers";
import { AuthServiceClient } from "gatehouse-workers/client";
import { describe, expect, it } from "vitest";
import { APP, LOGIN_URL, people, signIn, visit, visitWith } from "./helpers";

interface Me {
  user: { id: string; firstName: string; memberships: unknown[] };
  organization: { id: string; slug: string; role: string } | null;
}

describe("example consumer: a user resolved through the auth worker over RPC", () => {
  it("answers /api/me with the user and organization the auth worker holds", async () => {
    const ada = people.ada();
    const { cookie } = await signIn(ada);
    const res = await visit("/api/me", { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    const me = (await res.json()) as Me;
    expect(me.user.id).toBe(ada.id);
    expect(me.user.firstName).toBe("Ada");
    expect(me.organization).toEqual({ id: "org_acme", slug: "acme", role: "admin" });
  });

  it("shows the dashboard with the user's name and the session's organization", async () => {
    const { cookie } = await signIn(people.grace(), "org_globex");
    const res = await visit("/dashboard", { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Hello, <strong>Grace Hopper</strong>");
    expect(html).toContain("Organization: <strong>globex</strong> (role: admin)");
  });

  it("takes the organization from /org/<slug>/ and refuses one the user is not in", async () => {
    const { cookie } = await signIn(people.alan());
    const acme = await visit("/org/acme/dashboard", { cookie });
    expect(acme.status).toBe(200);
    expect(await acme.text()).toContain("Organization: <strong>acme</strong> (role: member)");
    const globex = await visit("/org/globex/dashboard", { cookie });
    expect(globex.status).toBe(403);
    expect(await globex.text()).toContain("not a member of globex");
    expect((await visit("/org/Not_A_Slug/dashboard", { cookie })).status).toBe(404);
  });

  it("refuses a forged or unknown session cookie", async () => {
    const res = await visit("/api/me", { cookie: `__Host-gh_session=${"a".repeat(43)}.${"b".repeat(43)}` });
    expect(res.status).toBe(401);
  });
});

describe("example consumer: revocation", () => {
  it("refuses a session the moment it is revoked", async () => {
    const ada = people.ada();
    const kept = await signIn(ada);
    const revoked = await signIn(ada);
    expect((await visit("/api/me", { cookie: revoked.cookie })).status).toBe(200);

    const auth = new AuthServiceClient(env.AUTH);
    expect(await auth.revokeSession(revoked.sessionId)).toMatchObject({ revoked: 1 });

    expect((await visit("/api/me", { cookie: revoked.cookie })).status).toBe(401);
    const page = await visit("/dashboard", { cookie: revoked.cookie });
    expect(page.status).toBe(302);
    expect((await visit("/api/me", { cookie: kept.cookie })).status).toBe(200);
  });

  it("refuses every session of a user after revokeUser", async () => {
    const grace = people.grace();
    const a = await signIn(grace);
    const b = await signIn(grace, "org_globex");
    const auth = new AuthServiceClient(env.AUTH);
    expect((await auth.listSessions(grace.id)).map((s) => s.id).sort()).toEqual([a.sessionId, b.sessionId].sort());
    expect(await auth.revokeUser(grace.id)).toMatchObject({ revoked: 2 });
    expect((await visit("/api/me", { cookie: a.cookie })).status).toBe(401);
    expect((await visit("/api/me", { cookie: b.cookie })).status).toBe(401);
    expect(await auth.listSessions(grace.id)).toEqual([]);
  });
});

describe("example consumer: RoleMiddleware behind ServiceAuthMiddleware", () => {
  it("answers 403 to a member and 200 to an admin of the organization in the path", async () => {
    const alan = await signIn(people.alan());
    const member = await visit("/org/acme/admin", { cookie: alan.cookie });
    expect(member.status).toBe(403);
    expect(await member.text()).toContain("Your role in this organization does not allow this.");
    const json = await visit("/org/acme/admin", { cookie: alan.cookie, accept: "application/json" });
    expect(json.status).toBe(403);
    expect(await json.json()).toMatchObject({ error: "forbidden" });

    const ada = await signIn(people.ada());
    const admin = await visit("/org/acme/admin", { cookie: ada.cookie });
    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain("Admin of acme");
  });

  it("judges the organization in the path, not the session's", async () => {
    // Grace signed in to acme (member) is an admin of globex only.
    const { cookie } = await signIn(people.grace(), "org_acme");
    expect((await visit("/org/acme/admin", { cookie })).status).toBe(403);
    expect((await visit("/org/globex/admin", { cookie })).status).toBe(200);
  });
});

describe("example consumer: no session", () => {
  it("redirects a page visit to the auth worker's login URL with return_to", async () => {
    const res = await visit("/dashboard?tab=2");
    expect(res.status).toBe(302);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const location = new URL(res.headers.get("Location")!);
    expect(`${location.origin}${location.pathname}`).toBe(LOGIN_URL);
    // The consumer is on another origin than the login URL: return_to is absolute.
    expect(location.searchParams.get("return_to")).toBe(`${APP}/dashboard?tab=2`);
    const admin = await visit("/org/acme/admin");
    expect(new URL(admin.headers.get("Location")!).searchParams.get("return_to")).toBe(`${APP}/org/acme/admin`);
  });

  it("answers 401 JSON to /api/me and to non-GET calls", async () => {
    const res = await visit("/api/me");
    expect(res.status).toBe(401);
    expect(res.headers.get("Content-Type")).toContain("application/json");
    expect(await res.json()).toEqual({ error: "unauthenticated", message: "Sign in first" });
    expect((await visit("/dashboard", { method: "POST" })).status).toBe(401);
    expect((await visit("/dashboard", { accept: "application/json" })).status).toBe(401);
  });

  it("serves the public home page to anyone, greeting a signed-in user", async () => {
    const anonymous = await visit("/");
    expect(anonymous.status).toBe(200);
    const html = await anonymous.text();
    expect(html).toContain("You are not signed in.");
    expect(html).toContain(`href="${LOGIN_URL}?return_to=${encodeURIComponent(`${APP}/dashboard`)}"`);
    const { cookie } = await signIn(people.ada());
    expect(await (await visit("/", { cookie })).text()).toContain("Signed in as <strong>Ada Lovelace</strong>");
  });
});

describe("example consumer: the auth worker failing", () => {
  it("answers 503 JSON when the auth worker cannot be reached", async () => {
    const { cookie } = await signIn(people.ada());
    // A page route answers JSON to a client that asks for it (a browser gets a page: dead-ends.test.ts).
    for (const [path, accept] of [
      ["/api/me", undefined],
      ["/dashboard", "application/json"],
    ] as const) {
      const res = await visitWith("AUTH_DOWN", path, { cookie, ...(accept ? { accept } : {}) });
      expect(res.status).toBe(503);
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      expect(await res.json()).toEqual({
        error: "auth_service_unavailable",
        message: "The sign-in service is unavailable. Try again shortly.",
      });
    }
  });

  it("answers 503 JSON when the auth worker's session store is down", async () => {
    const { cookie } = await signIn(people.ada());
    const res = await visitWith("AUTH_STORE_DOWN", "/api/me", { cookie });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: "auth_service_unavailable" });
  });

  it("answers 502 JSON, without the auth worker's message, when it throws", async () => {
    // An auth worker with a bug: an unexpected error, internal words in its message.
    const { cookie } = await signIn(people.ada());
    const res = await visitWith("AUTH_BROKEN", "/api/me", { cookie });
    expect(res.status).toBe(502);
    const body = await res.text();
    expect(JSON.parse(body)).toEqual({ error: "auth_service_error", message: "The sign-in service failed to answer." });
    expect(body).not.toContain("SESSION_SECRET");
  });

  it("answers 503 JSON when the auth worker refuses its configuration (no SESSION_SECRET)", async () => {
    const { cookie } = await signIn(people.ada());
    const res = await visitWith("AUTH_MISCONFIGURED", "/api/me", { cookie });
    expect(res.status).toBe(503);
    const body = await res.text();
    expect(JSON.parse(body)).toMatchObject({ error: "auth_service_unavailable" });
    expect(body).not.toContain("SESSION_SECRET");
  });

  it("keeps the public page up, without a greeting, when the auth worker is down", async () => {
    const { cookie } = await signIn(people.ada());
    const res = await visitWith("AUTH_DOWN", "/", { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("You are not signed in.");
    expect(html).toContain("Sign-in is unavailable right now.");
  });

  it("never calls the auth worker for a request without cookies", async () => {
    // AUTH_DOWN fails every call, so reaching it would answer 503 instead of the login redirect.
    expect((await visitWith("AUTH_DOWN", "/dashboard")).status).toBe(302);
    expect((await visitWith("AUTH_DOWN", "/api/me")).status).toBe(401);
  });
});
