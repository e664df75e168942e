/**
 * Issue 18, the consuming worker's side: the session the SDK resolves carries when the person last
 * authenticated and any impersonator; `RecentAuthMiddleware` (with the auth worker's absolute login
 * URL) sends an old sign-in to a step-up and back; `NoImpersonationMiddleware` refuses an operator
 * signed in as someone else; every guarded page shows the impersonation banner.
 */
import { env } from "cloudflare:workers";
import { AuthServiceClient } from "gatehouse-workers/client";
import { describe, expect, it } from "vitest";
import { people, signIn, visit } from "./helpers";

const HOUR = 3_600_000;

describe("sensitive actions in a consuming worker", () => {
  it("the resolved session says when the person authenticated and who impersonates them", async () => {
    const ada = people.ada();
    const at = Date.now() - HOUR;
    const { cookie } = await signIn(ada, "org_acme", {
      authenticatedAt: at,
      impersonator: { email: "ops@acme.test", reason: null },
    });
    const session = await new AuthServiceClient(env.AUTH).resolveSession(cookie);
    expect(session).toMatchObject({ authenticatedAt: at, impersonator: { email: "ops@acme.test", reason: null } });
  });

  it("a recent sign-in opens /settings; an hour-old one is sent to a step-up at the auth worker, back to /settings", async () => {
    const fresh = await signIn(people.alan());
    const open = await visit("/settings", { cookie: fresh.cookie, accept: "text/html" });
    expect(open.status).toBe(200);
    expect(await open.text()).toContain("signed in recently enough");

    const old = await signIn(people.alan(), "org_acme", { authenticatedAt: Date.now() - HOUR });
    const res = await visit("/settings", { cookie: old.cookie, accept: "text/html" });
    expect(res.status).toBe(302);
    const login = new URL(res.headers.get("Location")!);
    expect(`${login.origin}${login.pathname}`).toBe(env.AUTH_LOGIN_URL);
    expect(login.searchParams.get("max_age")).toBe("300");
    expect(login.searchParams.get("return_to")).toBe("https://app.example.com/settings");
  });

  it("an impersonated session sees the banner on every guarded page and is refused /settings", async () => {
    const { cookie } = await signIn(people.grace(), "org_acme", {
      impersonator: { email: "support@acme.test", reason: "Ticket 7" },
    });
    const dashboard = await visit("/dashboard", { cookie, accept: "text/html" });
    const html = await dashboard.text();
    expect(html).toMatch(
      /<body><p role="alert" data-gatehouse-impersonation><strong>Impersonation:<\/strong> support@acme\.test/,
    );
    expect(html).toContain("Reason: Ticket 7.");
    const settings = await visit("/settings", { cookie, accept: "application/json" });
    expect(settings.status).toBe(403);
    expect(await settings.json()).toMatchObject({ error: "impersonation_forbidden" });
  });
});
