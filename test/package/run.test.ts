/**
 * Fixtures 2 and 1 running together, as a team would run them: the local identity provider from
 * the installed package's CLI (`gatehouse-workers dev-idp`), `wrangler dev` of the team's auth
 * worker (createAuthWorker with AUTH_KV, PEOPLE, LIMITS and a cookie domain) and of the consuming
 * worker, joined by a service binding through a private dev registry. In both revocation modes a
 * person signs in from the consumer's guarded page, sees it, signs out on the consumer, and the
 * same cookie is refused afterwards: the UserSessions binding bug of issue 16 is gone.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { identityVariables, LOCAL_IDP_DEFAULTS } from "../../scripts/local-idp/index.ts";
import {
  answers200,
  freePort,
  LOOPBACK,
  startWranglerDev,
  type WranglerDev,
  waitUntilReady,
  writeEnvFile,
} from "../../tooling/dev/index.ts";
import { signInThroughPage } from "../local-idp/helpers.ts";
import { userEnv } from "./support.ts";

const pkg = inject("pkg");
const ADA = "user_01ADALOVELACE0000000000000";
const ACME = "org_01ACME00000000000000000000";

interface World {
  idpUrl: string;
  authUrl: string;
  consumerUrl: string;
  startAuth(mode: "strict" | "eventual"): Promise<void>;
}

let idp: ChildProcess | undefined;
const workers: WranglerDev[] = [];
let world: World;

/** The session cookie pair(s) a response sets, as one Cookie header. */
function cookiesOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .join("; ");
}

beforeAll(async () => {
  const dir = join(pkg.work, "run");
  mkdirSync(dir, { recursive: true });
  const [idpPort, authPort, consumerPort] = [await freePort(), await freePort(), await freePort()];
  const idpUrl = `http://${LOOPBACK}:${idpPort}`;
  const authUrl = `http://${LOOPBACK}:${authPort}`;
  const consumerUrl = `http://${LOOPBACK}:${consumerPort}`;

  // The provider as an adopter starts it: the CLI of the package installed in the auth worker's project.
  idp = spawn(
    process.execPath,
    [
      join(pkg.fixtures["auth-worker"], "node_modules/gatehouse-workers/dist/cli.js"),
      "dev-idp",
      "--port",
      String(idpPort),
    ],
    { cwd: pkg.fixtures["auth-worker"], env: userEnv(), stdio: ["ignore", "pipe", "pipe"] },
  );
  let idpOutput = "";
  idp.stdout?.on("data", (chunk) => (idpOutput += chunk));
  idp.stderr?.on("data", (chunk) => (idpOutput += chunk));
  const deadline = Date.now() + 20_000;
  while (!(await answers200(`${idpUrl}/__local/health`).catch(() => false))) {
    if (idp.exitCode !== null || Date.now() > deadline) throw new Error(`dev-idp did not start:\n${idpOutput}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  const registry = join(dir, "registry");
  const consumerEnv = join(dir, "consumer.env");
  writeEnvFile(consumerEnv, { AUTH_LOGIN_URL: `${authUrl}/auth/login` });
  const secret = randomBytes(32).toString("base64url");
  let auth: WranglerDev | undefined;

  const startAuth = async (mode: "strict" | "eventual") => {
    if (auth) {
      await auth.stop();
      workers.splice(workers.indexOf(auth), 1);
    }
    const envFile = join(dir, `auth-${mode}.env`);
    writeEnvFile(envFile, {
      SESSION_SECRET: secret,
      AUTH_REDIRECT_URL: `${authUrl}/auth/callback`,
      AUTH_RETURN_ORIGINS: consumerUrl,
      GATEHOUSE_REVOCATION: mode,
      ...identityVariables({ ...LOCAL_IDP_DEFAULTS, hostname: LOOPBACK, port: idpPort }),
    });
    auth = await startWranglerDev({
      name: `team-auth-${mode}`,
      cwd: pkg.fixtures["auth-worker"],
      port: authPort,
      persistTo: join(dir, "auth-state"),
      registry,
      envFile,
      logFile: join(dir, `auth-${mode}.log`),
    });
    workers.push(auth);
    await waitUntilReady(auth, () => answers200(`${authUrl}/health`), "GET /health answered 200");
    // The consumer reaches it once the registry has the new process: an unknown cookie is then a redirect to login.
    await waitUntilReady(
      consumer,
      async () => {
        const res = await fetch(`${consumerUrl}/dashboard`, {
          headers: { Cookie: "gh_session=probe" },
          redirect: "manual",
        });
        await res.arrayBuffer();
        return res.status === 302;
      },
      "the consumer's AUTH binding reached the auth worker",
    );
  };

  const consumer = await startWranglerDev({
    name: "fixture-consumer",
    cwd: pkg.fixtures.consumer,
    port: consumerPort,
    persistTo: join(dir, "consumer-state"),
    registry,
    envFile: consumerEnv,
    logFile: join(dir, "consumer.log"),
  });
  workers.push(consumer);
  await waitUntilReady(consumer, () => answers200(`${consumerUrl}/`), "GET / answered 200");
  world = { idpUrl, authUrl, consumerUrl, startAuth };
}, 180_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  if (idp && idp.exitCode === null) {
    idp.kill("SIGTERM");
    await once(idp, "exit");
  }
});

describe.each(["strict", "eventual"] as const)("the team's auth worker and consumer, %s revocation", (mode) => {
  it("signs in from the consumer's guarded page, signs out there, and the cookie is refused afterwards", async () => {
    await world.startAuth(mode);
    const { authUrl, consumerUrl } = world;

    // 1. The guarded page sends the person to the auth worker's login, with the way back.
    const guarded = await fetch(`${consumerUrl}/dashboard`, { redirect: "manual" });
    expect(guarded.status).toBe(302);
    const login = new URL(guarded.headers.get("Location")!);
    expect(login.origin + login.pathname).toBe(`${authUrl}/auth/login`);
    expect(login.searchParams.get("return_to")).toBe(`${consumerUrl}/dashboard`);

    // 2. The auth worker starts the flow at the provider; the person picks Ada on its page.
    const start = await fetch(login, { redirect: "manual" });
    expect(start.status).toBe(302);
    const callback = await signInThroughPage(start.headers.get("Location")!, ADA, ACME);
    expect(callback.origin + callback.pathname).toBe(`${authUrl}/auth/callback`);

    // 3. The callback sets the session cookie (the team's domain) and goes back to the consumer.
    const back = await fetch(callback, { headers: { Cookie: cookiesOf(start) }, redirect: "manual" });
    expect(back.status).toBe(302);
    expect(back.headers.get("Location")).toBe(`${consumerUrl}/dashboard`);
    const setCookie = back.headers.getSetCookie().find((c) => c.startsWith("gh_session="));
    expect(setCookie).toMatch(/; Domain=example\.com/i);
    const cookie = setCookie!.split(";")[0]!;

    // 4. The consumer's page, guarded over RPC, now greets Ada; its API knows her.
    const page = await fetch(`${consumerUrl}/dashboard`, { headers: { Cookie: cookie }, redirect: "manual" });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Hello Ada");
    const me = await fetch(`${consumerUrl}/api/me`, { headers: { Cookie: cookie, Accept: "application/json" } });
    expect(((await me.json()) as { user: { id: string } }).user.id).toBe(ADA);

    // 5. Sign-out on the consumer: a same-origin POST, revoked at the auth worker over RPC.
    const out = await fetch(`${consumerUrl}/logout`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: consumerUrl },
      redirect: "manual",
    });
    expect(out.status).toBe(303);

    // 6. The same cookie is refused: pages go to login again, the API answers 401.
    const after = await fetch(`${consumerUrl}/dashboard`, { headers: { Cookie: cookie }, redirect: "manual" });
    expect(after.status).toBe(302);
    expect(after.headers.get("Location")).toContain(`${authUrl}/auth/login`);
    const api = await fetch(`${consumerUrl}/api/me`, { headers: { Cookie: cookie, Accept: "application/json" } });
    expect(api.status).toBe(401);
  });
});
