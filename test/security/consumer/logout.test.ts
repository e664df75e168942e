/**
 * Issue 14 finding 3, consumer side: a consuming worker signs out on its own origin with
 * `ServiceLogoutHandler` (`POST /logout` in the example consumer): a same-origin POST revokes the
 * session at the auth worker over RPC; a GET, or a POST from another origin, signs nobody out.
 */
import { env, exports } from "cloudflare:workers";
import { AuthServiceClient } from "gatehouse-workers/client";
import { describe, expect, it } from "vitest";
import { logoutRefusal } from "../../../client-sdk/auth-service";
import { APP, people, signIn } from "../../consumer/helpers";

const auth = () => new AuthServiceClient(env.AUTH);

function logout(cookie: string, headers: Record<string, string>, method = "POST"): Promise<Response> {
  return exports.default.fetch(
    new Request(`${APP}/logout`, { method, headers: { Cookie: cookie, ...headers }, redirect: "manual" }),
  );
}

describe("finding 3: the consumer's sign-out route", () => {
  it("a same-origin POST revokes the session at the auth worker and redirects home", async () => {
    const { cookie } = await signIn(people.ada());
    expect(await auth().resolveSession(cookie)).not.toBeNull();
    const res = await logout(cookie, { Origin: APP, "Sec-Fetch-Site": "same-origin" });
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/");
    expect(await auth().resolveSession(cookie)).toBeNull();
  });

  it("accepts a same-origin POST without Origin when fetch metadata says same-origin", async () => {
    const { cookie } = await signIn(people.ada());
    const res = await logout(cookie, { "Sec-Fetch-Site": "same-origin", Accept: "application/json" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ signedOut: true });
    expect(await auth().resolveSession(cookie)).toBeNull();
  });

  it.each([
    ["another site's form", { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" }],
    ["a sibling subdomain's form", { Origin: "https://evil.app.example.com", "Sec-Fetch-Site": "same-site" }],
    ["a POST with neither Origin nor fetch metadata", {}],
    ["a POST whose fetch metadata is same-site", { "Sec-Fetch-Site": "same-site" }],
  ])("refuses %s (403) and keeps the session", async (_label, headers) => {
    const { cookie } = await signIn(people.ada());
    const res = await logout(cookie, headers);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: "csrf_failed" });
    expect(await auth().resolveSession(cookie)).not.toBeNull();
  });

  it("never signs out on GET", async () => {
    const { cookie } = await signIn(people.ada());
    const res = await logout(cookie, { Origin: APP, "Sec-Fetch-Site": "same-origin" }, "GET");
    expect(res.status).toBe(404);
    expect(await auth().resolveSession(cookie)).not.toBeNull();
  });

  it("the consumer's pages sign out with a POST form, never a link to the auth worker", async () => {
    const { cookie } = await signIn(people.ada());
    const html = await (
      await exports.default.fetch(new Request(`${APP}/dashboard`, { headers: { Cookie: cookie } }))
    ).text();
    expect(html).toContain('<form method="post" action="/logout">');
    expect(html).not.toContain("/auth/logout");
  });

  it("logoutRefusal: the rule itself", () => {
    const req = (method: string, headers: Record<string, string>) => new Request(`${APP}/logout`, { method, headers });
    expect(logoutRefusal(req("POST", { Origin: APP }))).toBeNull();
    expect(logoutRefusal(req("GET", { Origin: APP }))).toBe("method_not_allowed");
    expect(logoutRefusal(req("POST", { Origin: "null" }))).toBe("cross_origin");
  });
});
