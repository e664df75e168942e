import { env } from "cloudflare:workers";
import { compose } from "gatehouse-workers";
import {
  currentOrganizationSlug,
  currentSession,
  currentUser,
  OrgResolver,
  RoleMiddleware,
  roleInCurrentOrganization,
} from "gatehouse-workers/auth";
import {
  AuthServiceClient,
  ServiceAuthMiddleware,
  currentOrganizationSlug as sdkCurrentOrganizationSlug,
  currentUser as sdkCurrentUser,
} from "gatehouse-workers/client";
import { describe, expect, it } from "vitest";
import { APP, people, signIn } from "./helpers";

const client = () => new AuthServiceClient(env.AUTH);

describe("request values shared by AuthMiddleware and ServiceAuthMiddleware", () => {
  it("exports the same accessors from gatehouse-workers/client and gatehouse-workers/auth", () => {
    expect(currentUser).toBe(sdkCurrentUser);
    expect(currentOrganizationSlug).toBe(sdkCurrentOrganizationSlug);
  });

  it("sets the user and organization that currentUser and RoleMiddleware read", async () => {
    const grace = people.grace();
    const { cookie } = await signIn(grace);
    const seen: unknown[] = [];
    const run = compose(
      [
        new ServiceAuthMiddleware(client(), {
          loginUrl: `${APP}/auth/login`,
          orgResolver: new OrgResolver(["header"]),
        }),
        new RoleMiddleware("admin"),
      ],
      (req) => {
        const user = currentUser(req)!;
        seen.push(user.id, currentOrganizationSlug(req), roleInCurrentOrganization(user, currentOrganizationSlug(req)));
        // A session resolved over the binding has no stored record: currentSession (gatehouse-workers/auth) stays null.
        seen.push(currentSession(req));
        return new Response("ok");
      },
    );
    const globex = await run(new Request(APP, { headers: { Cookie: cookie, "X-Org-Slug": "globex" } }));
    expect(globex.status).toBe(200);
    expect(seen).toEqual([grace.id, "globex", "admin", null]);
    const acme = await run(new Request(APP, { headers: { Cookie: cookie, "X-Org-Slug": "acme" } }));
    expect(acme.status).toBe(403);
  });
});

describe("ServiceAuthMiddleware", () => {
  it("sends a path as return_to when the login URL shares the request's origin", async () => {
    const run = compose([new ServiceAuthMiddleware(client(), { loginUrl: `${APP}/auth/login` })], () => new Response());
    const res = await run(new Request(`${APP}/reports/q3?tab=2`, { method: "HEAD" }));
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(`${APP}/auth/login?return_to=%2Freports%2Fq3%3Ftab%3D2`);
  });

  it("answers 401 JSON on API routes and to clients that want JSON", async () => {
    const api = compose(
      [new ServiceAuthMiddleware(client(), { loginUrl: `${APP}/auth/login`, api: true })],
      () => new Response(),
    );
    expect((await api(new Request(`${APP}/api/x`))).status).toBe(401);
    const pages = compose(
      [new ServiceAuthMiddleware(client(), { loginUrl: `${APP}/auth/login` })],
      () => new Response(),
    );
    const json = await pages(new Request(`${APP}/x`, { headers: { Accept: "application/json" } }));
    expect(json.status).toBe(401);
    expect(await json.json()).toEqual({ error: "unauthenticated", message: "Sign in first" });
  });

  it("marks signed-in answers private, no-store unless the handler chose a Cache-Control", async () => {
    const { cookie } = await signIn(people.ada());
    const guard = new ServiceAuthMiddleware(client(), { loginUrl: `${APP}/auth/login` });
    const plain = await compose([guard], () => new Response("x"))(new Request(APP, { headers: { Cookie: cookie } }));
    expect(plain.headers.get("Cache-Control")).toBe("private, no-store");
    const chosen = await compose(
      [guard],
      () => new Response("x", { headers: { "Cache-Control": "private, max-age=5" } }),
    )(new Request(APP, { headers: { Cookie: cookie } }));
    expect(chosen.headers.get("Cache-Control")).toBe("private, max-age=5");
  });

  it("needs an absolute http(s) login URL", () => {
    expect(() => new ServiceAuthMiddleware(client(), { loginUrl: "/auth/login" })).toThrow(/absolute URL/);
    expect(() => new ServiceAuthMiddleware(client(), { loginUrl: "javascript:alert(1)" })).toThrow(/http/);
  });
});
