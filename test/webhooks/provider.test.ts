// The whole loop on one machine: a real login through the auth worker against the local identity
// provider, a change made at the provider (its /__local/ controls or its page), the provider's own
// signed delivery (taken from its outbox, exactly as it was POSTed) replayed into the worker.
// The provider's state is shared by this file only, which resets it before each test.
import { env, exports } from "cloudflare:workers";
import { Application, toHono } from "gatehouse-workers";
import {
  AuthMiddleware,
  AuthServiceProvider,
  OrgResolver,
  RoleMiddleware,
  SessionManager,
} from "gatehouse-workers/auth";
import { beforeEach, describe, expect, it } from "vitest";
import { openTab, withTimeout } from "../sessions/helpers";
import { deliver, ORIGIN, sleep, stubOf } from "./helpers";

const IDP = env.WEBHOOK_IDP.url;
const ADA = "user_01ADALOVELACE0000000000000";
const GRACE = "user_01GRACEHOPPER0000000000000";
const ALAN = "user_01ALANTURING00000000000000";
const ADA_ACME = "om_01ADAACME00000000000000000";

interface Delivery {
  id: string;
  event: string;
  status: string;
  body: string;
  signature: string;
}

const local = (path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${IDP}/__local/${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

async function outbox(): Promise<Delivery[]> {
  return ((await (await local("webhooks")).json()) as { deliveries: Delivery[] }).deliveries;
}

/** Waits for the provider's delivery of `event` matching `about` (a string in its body) to have been sent. */
async function sent(event: string, about: string): Promise<Delivery> {
  for (let i = 0; i < 100; i++) {
    const found = (await outbox()).find((d) => d.event === event && d.body.includes(about) && d.status !== "pending");
    if (found) return found;
    await sleep(20);
  }
  throw new Error(`the provider never sent ${event} about ${about}`);
}

/** Waits until the user's object has no queued rewrite left (its alarm runs them). */
async function settled(userId: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await stubOf(userId).providerEventStats()).pendingRewrites === 0) return;
    await sleep(50);
  }
  throw new Error("rewrites still pending");
}

/** Replays the provider's delivery into the auth worker, with its own signature. */
const replay = (d: Delivery) => deliver(d.body, { signature: d.signature });

function cookiesFrom(res: Response, jar: Record<string, string>): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair!.indexOf("=");
    if (/Max-Age=0/i.test(line)) delete jar[pair!.slice(0, eq)];
    else jar[pair!.slice(0, eq)] = pair!.slice(eq + 1);
  }
}
const cookieHeader = (jar: Record<string, string>) =>
  Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");

/** A real login through the auth worker; the provider issues the code without its HTML step. */
async function login(userId: string, organizationId?: string): Promise<string> {
  const jar: Record<string, string> = {};
  const start = await exports.default.fetch(`${ORIGIN}/auth/login`, { redirect: "manual" });
  cookiesFrom(start, jar);
  const authorize = new URL(start.headers.get("Location")!);
  const issued = await local("codes", {
    body: {
      user_id: userId,
      ...(organizationId ? { organization_id: organizationId } : {}),
      state: authorize.searchParams.get("state"),
      code_challenge: authorize.searchParams.get("code_challenge"),
      redirect_uri: env.AUTH_REDIRECT_URL,
    },
  });
  const { code } = (await issued.json()) as { code: string };
  const callback = await exports.default.fetch(
    `${ORIGIN}/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`,
    { headers: { Cookie: cookieHeader(jar) }, redirect: "manual" },
  );
  expect(callback.status).toBe(302);
  cookiesFrom(callback, jar);
  return cookieHeader(jar);
}

/** An app of the consumer's kind: /org/<slug>/settings needs the admin role in that organization. */
function guardedApp() {
  const app = Application.create(env, { providers: [new AuthServiceProvider()] });
  const auth = new AuthMiddleware(app.container.resolve(SessionManager), {
    orgResolver: new OrgResolver(["path-prefix"]),
  });
  app.hono.get("/org/:slug/settings", toHono(auth), toHono(new RoleMiddleware("admin")), (c) => c.text("settings"));
  return app;
}

const settings = (app: ReturnType<typeof guardedApp>, cookie: string) =>
  app.fetch(new Request(`${ORIGIN}/org/acme/settings`, { headers: { Cookie: cookie, Accept: "application/json" } }));

const resolve = (cookie: string) =>
  new SessionManager(env.SESSIONS, env.SESSION_SECRET, { userSessions: env.USER_SESSIONS }).resolveUser(
    new Request(ORIGIN, { headers: { Cookie: cookie } }),
  );

beforeEach(async () => {
  expect((await local("reset", { body: {} })).status).toBe(200);
});

describe("provider events from the local identity provider", () => {
  it("a role change at the provider reaches RoleMiddleware without a new login, and back", async () => {
    const cookie = await login(ADA);
    const app = guardedApp();
    expect((await settings(app, cookie)).status).toBe(200);
    const tab = await openTab(ADA, cookie);

    expect((await local(`memberships/${ADA_ACME}/role`, { body: { role: "member" } })).status).toBe(200);
    const demoted = await sent("organization_membership.updated", '"slug":"member"');
    expect((await replay(demoted)).res.status).toBe(200);
    expect((await settings(app, cookie)).status).toBe(403);
    expect(await withTimeout(tab.next("session.updated"))).toMatchObject({
      memberships: [{ organizationSlug: "acme", role: "member" }],
    });

    await local(`memberships/${ADA_ACME}/role`, { body: { role: "admin" } });
    const promoted = await replay(await sent("organization_membership.updated", '"slug":"admin"'));
    expect(promoted.res.status).toBe(200);
    // Same record again within a second: KV allows one write per key per second, so the alarm writes it.
    await settled(ADA);
    expect((await settings(app, cookie)).status).toBe(200);
  });

  it("a provider-side session revoke logs the live socket out", async () => {
    const cookie = await login(ALAN);
    const tab = await openTab(ALAN, cookie);
    const sessions = (await (await local(`sessions?user_id=${ALAN}`)).json()) as { data: { id: string }[] };
    const providerSession = sessions.data[0]!.id;
    expect((await local(`sessions/${providerSession}/revoke`, { body: {} })).status).toBe(200);
    const delivery = await sent("session.revoked", providerSession);
    const { res } = await replay(delivery);
    expect(res.status).toBe(200);
    expect(await withTimeout(tab.next("session.revoked"))).toMatchObject({ reason: "provider" });
    expect((await withTimeout(tab.closed)).code).toBe(4001);
    expect(await resolve(cookie)).toBeNull();
    // The provider really POSTed it: the receiver got the same bytes and signature.
    const { received } = (await (await fetch(`${env.WEBHOOK_IDP.receiverUrl}/received`)).json()) as {
      received: { signature: string; body: string; contentType: string }[];
    };
    expect(received).toContainEqual({
      signature: delivery.signature,
      body: delivery.body,
      contentType: "application/json",
    });
  });

  it("the login's own session.created event is signed, accepted and ignored", async () => {
    await login(ALAN);
    const created = await sent("session.created", ALAN);
    expect((await replay(created)).body).toEqual({ received: true, handled: false });
  });

  it("a replay of the provider's delivery after the retry window's tolerance is refused", async () => {
    const cookie = await login(ALAN);
    const sessions = (await (await local(`sessions?user_id=${ALAN}`)).json()) as { data: { id: string }[] };
    await local(`sessions/${sessions.data[0]!.id}/revoke`, { body: {} });
    const delivery = await sent("session.revoked", sessions.data[0]!.id);
    const forged = delivery.signature.replace(/t=\d+/, `t=${Date.now() - 600_000}`);
    const { res, body } = await deliver(delivery.body, { signature: forged });
    expect(res.status).toBe(400);
    expect(body.error).toBe("stale_timestamp");
    expect((await resolve(cookie))?.id).toBe(ALAN);
  });
});

describe("the provider's page", () => {
  async function page(): Promise<{ html: string; token: string }> {
    const html = await (await fetch(`${IDP}/`)).text();
    const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
    if (!token) throw new Error("no form token on the page");
    return { html, token };
  }
  const post = (action: string, fields: Record<string, string>) =>
    fetch(`${IDP}${action}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
      redirect: "manual",
    });

  it("lists each user with change role, revoke this session and delete user", async () => {
    await login(GRACE, "org_01GLOBEX000000000000000000");
    const { html } = await page();
    expect(html).toContain("Grace Hopper");
    expect(html).toContain(`action="/dashboard/users/${GRACE}/delete"`);
    expect(html).toContain(`action="/dashboard/memberships/om_01GRACEACME000000000000000/role"`);
    expect(html).toMatch(/action="\/dashboard\/sessions\/session_[0-9A-Z]+\/revoke"/);
    expect(html).toContain("Changes are delivered as signed webhooks");
  });

  it("delete user: the provider sends user.deleted and every session of the user ends", async () => {
    const cookie = await login(GRACE, "org_01GLOBEX000000000000000000");
    const tab = await openTab(GRACE, cookie);
    const { token } = await page();
    expect((await post(`/dashboard/users/${GRACE}/delete`, { token: "wrong" })).status).toBe(403);
    const res = await post(`/dashboard/users/${GRACE}/delete`, { token });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    await replay(await sent("user.deleted", GRACE));
    expect(await withTimeout(tab.next("session.revoked"))).toMatchObject({ reason: "user_deleted" });
    expect(await resolve(cookie)).toBeNull();
    expect((await (await local("directory")).json()) as { users: { id: string }[] }).not.toMatchObject({
      users: expect.arrayContaining([expect.objectContaining({ id: GRACE })]),
    });
  });

  it("change role from the page sends organization_membership.updated with the new role", async () => {
    const { token } = await page();
    const res = await post(`/dashboard/memberships/${ADA_ACME}/role`, { token, role: "member" });
    expect(res.status).toBe(303);
    const d = await sent("organization_membership.updated", ADA_ACME);
    expect(JSON.parse(d.body)).toMatchObject({
      event: "organization_membership.updated",
      data: { id: ADA_ACME, user_id: ADA, role: { slug: "member" }, status: "active" },
    });
    await local(`memberships/${ADA_ACME}/role`, { body: { role: "admin" } });
  });

  it("JSON controls refuse unknown ids and roles", async () => {
    expect((await local(`memberships/${ADA_ACME}/role`, { body: { role: "emperor" } })).status).toBe(400);
    expect((await local("memberships/om_nope/role", { body: { role: "member" } })).status).toBe(404);
    expect((await local("sessions/session_nope/revoke", { body: {} })).status).toBe(404);
    expect((await local("users/user_nope", { method: "DELETE" })).status).toBe(404);
  });
});
