/**
 * Issue 19: after a restart the session and the provider agree. A person changes a role on the
 * local provider's dashboard, the provider and `wrangler dev` of the auth worker stop and start
 * again on the same state (the worker's `--persist-to` folder, the provider's directory file beside
 * it, as `npm start` keeps them in .wrangler/state), and signing in again in the same browser gives
 * a session with the provider's role, replacing the browser's old session. Everything runs on
 * loopback ports and a temporary folder: nothing is shared with a developer's `npm start`.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import {
  ACME_ID,
  ADA_ID,
  identityVariables,
  LOCAL_IDP_DEFAULTS,
  type LocalIdp,
  startLocalIdp,
} from "../../scripts/local-idp/index.ts";
import {
  answers200,
  freePort,
  LOOPBACK,
  REPO_ROOT,
  startWranglerDev,
  type WranglerDev,
  waitUntilReady,
  writeEnvFile,
} from "../../tooling/dev/index.ts";
import { signInThroughPage } from "../local-idp/helpers.ts";

const ADA_ACME = "om_01ADAACME00000000000000000";

const work = mkdtempSync(join(tmpdir(), "gatehouse-restart-"));
const state = join(work, "state");
const directoryFile = join(state, "local-idp", "directory.json");
let idp: LocalIdp | undefined;
let auth: WranglerDev | undefined;

afterAll(async () => {
  await down();
  rmSync(work, { recursive: true, force: true });
});

type Jar = Map<string, string>;

const cookieHeader = (jar: Jar) => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

function keepCookies(res: Response, jar: Jar): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair = "", ...attributes] = line.split(";");
    const name = pair.slice(0, pair.indexOf("=")).trim();
    const value = pair.slice(pair.indexOf("=") + 1).trim();
    const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
    if (expired || value === "") jar.delete(name);
    else jar.set(name, value);
  }
}

async function up(ports: { auth: number; idp: number }, envFile: string, webhookSecret: string): Promise<string> {
  const authUrl = `http://${LOOPBACK}:${ports.auth}`;
  idp = await startLocalIdp({
    port: ports.idp,
    apiKey: LOCAL_IDP_DEFAULTS.apiKey,
    clientId: LOCAL_IDP_DEFAULTS.clientId,
    directoryFile,
    webhook: { url: `${authUrl}/webhooks/identity`, secret: webhookSecret },
  });
  auth = await startWranglerDev({
    name: "restart-auth",
    cwd: REPO_ROOT,
    port: ports.auth,
    persistTo: state,
    registry: join(work, "registry"),
    envFile,
    logFile: join(work, "auth.log"),
  });
  await waitUntilReady(auth, () => answers200(`${authUrl}/health`), "GET /health answered 200");
  return authUrl;
}

async function down(): Promise<void> {
  await auth?.stop();
  await idp?.close();
  auth = undefined;
  idp = undefined;
}

/** Signs `userId` into Acme through the login route and the provider's page, in the browser `jar`. */
async function signIn(authUrl: string, jar: Jar, userId: string): Promise<void> {
  const start = await fetch(`${authUrl}/auth/login?organization_id=${ACME_ID}`, {
    redirect: "manual",
    headers: { Cookie: cookieHeader(jar) },
  });
  expect(start.status).toBe(302);
  keepCookies(start, jar);
  const callback = await signInThroughPage(start.headers.get("location")!, userId, ACME_ID);
  const back = await fetch(callback, { redirect: "manual", headers: { Cookie: cookieHeader(jar) } });
  expect(back.status).toBe(302);
  keepCookies(back, jar);
}

interface Me {
  sessionId: string;
  user: { id: string; memberships: { organizationId: string; role: string }[] };
}

async function me(authUrl: string, session: string): Promise<Response> {
  return fetch(`${authUrl}/api/me`, { headers: { Cookie: `gh_session=${session}`, Accept: "application/json" } });
}

async function sessionRole(authUrl: string, session: string): Promise<string | undefined> {
  const res = await me(authUrl, session);
  expect(res.status).toBe(200);
  const body = (await res.json()) as Me;
  return body.user.memberships.find((m) => m.organizationId === ACME_ID)?.role;
}

async function providerRole(): Promise<string | undefined> {
  const body = (await (await fetch(`${idp!.url}/__local/directory`)).json()) as {
    memberships: { id: string; role: { slug: string } }[];
  };
  return body.memberships.find((m) => m.id === ADA_ACME)?.role.slug;
}

/** Changes the role on the dashboard page with its form token, as a person would. */
async function changeRoleOnDashboard(role: string): Promise<void> {
  const page = await (await fetch(`${idp!.url}/`)).text();
  const token = /name="token" value="([^"]+)"/.exec(page)?.[1] ?? "";
  const res = await fetch(`${idp!.url}/dashboard/memberships/${ADA_ACME}/role`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token, role }),
    redirect: "manual",
  });
  expect(res.status).toBe(303);
}

it("a role changed at the provider is the role of the next session after both restart", async () => {
  const ports = { auth: await freePort(), idp: await freePort() };
  const webhookSecret = randomBytes(32).toString("base64url");
  const envFile = join(work, "auth.env");
  writeEnvFile(envFile, {
    SESSION_SECRET: randomBytes(32).toString("base64url"),
    ADMIN_API_TOKEN: randomBytes(32).toString("base64url"),
    AUTH_REDIRECT_URL: `http://${LOOPBACK}:${ports.auth}/auth/callback`,
    IDENTITY_WEBHOOK_SECRET: webhookSecret,
    ...identityVariables({ ...LOCAL_IDP_DEFAULTS, hostname: LOOPBACK, port: ports.idp }),
  });

  let authUrl = await up(ports, envFile, webhookSecret);
  const jar: Jar = new Map();
  await signIn(authUrl, jar, ADA_ID);
  const first = jar.get("gh_session")!;
  expect(await sessionRole(authUrl, first)).toBe("admin");
  await changeRoleOnDashboard("member");
  expect(await providerRole()).toBe("member");

  await down();
  authUrl = await up(ports, envFile, webhookSecret);
  // The provider came back with the directory the person left, not the demo one.
  expect(await providerRole()).toBe("member");
  // The worker's state came back too: the first session is still there until this browser signs in again.
  expect((await me(authUrl, first)).status).toBe(200);

  await signIn(authUrl, jar, ADA_ID);
  const second = jar.get("gh_session")!;
  expect(second).not.toBe(first);
  expect(await sessionRole(authUrl, second)).toBe(await providerRole());
  expect(await sessionRole(authUrl, second)).toBe("member");
  // Signing in again replaced the browser's old session instead of leaving it live.
  expect((await me(authUrl, first)).status).toBe(401);
});
