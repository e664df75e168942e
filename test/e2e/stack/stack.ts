/**
 * The system the browser tests drive, all on 127.0.0.1 and free ports: the local identity provider
 * (in this process), `wrangler dev` of the auth worker and `wrangler dev` of the example consumer.
 * Fresh secrets, a temporary persisted state and a private dev registry per run, so a developer's
 * `npm start`, `.dev.vars` or local state never leak in. It never listens beyond loopback.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  identityVariables,
  LOCAL_IDP_DEFAULTS,
  type LocalIdp,
  startLocalIdp,
} from "../../../scripts/local-idp/index.ts";
import {
  answers200,
  freePort,
  LOOPBACK as HOST,
  REPO_ROOT as root,
  startWranglerDev,
  type WranglerDev,
  waitUntilReady,
  writeEnvFile,
} from "../../../tooling/dev/index.ts";

/** What the tests get through `inject("e2e")`. */
export interface E2EStack {
  /** Auth worker origin, e.g. `http://127.0.0.1:41234`. */
  authUrl: string;
  /** Example consumer origin. */
  consumerUrl: string;
  /** Local identity provider origin. */
  idpUrl: string;
  /** Where flows save their screenshots (`test-results/e2e`). */
  screenshotDir: string;
  /** The auth worker's admin token for this run (the benchmarks revoke through the admin API). */
  adminToken: string;
  /** Where `wrangler dev` keeps the auth worker's local state (its Durable Objects' SQLite files). */
  authStateDir: string;
}

export interface RunningStack extends E2EStack {
  stop(): Promise<void>;
}

export async function startStack(): Promise<RunningStack> {
  const outDir = join(root, "test-results/e2e");
  mkdirSync(join(outDir, "logs"), { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "gatehouse-e2e-"));
  const procs: WranglerDev[] = [];
  let idp: LocalIdp | undefined;
  const stop = async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await idp?.close();
    rmSync(work, { recursive: true, force: true });
  };

  try {
    const adminToken = randomBytes(32).toString("base64url");
    const [authPort, consumerPort] = [await freePort(), await freePort()];
    const authUrl = `http://${HOST}:${authPort}`;
    const consumerUrl = `http://${HOST}:${consumerPort}`;
    // The provider also receives the users' security events, signed with this secret (the loop of
    // issue 17), and sends its directory changes (role changes) to the auth worker's webhook.
    const eventsSecret = randomBytes(32).toString("base64url");
    const webhookSecret = randomBytes(32).toString("base64url");
    idp = await startLocalIdp({
      apiKey: LOCAL_IDP_DEFAULTS.apiKey,
      clientId: LOCAL_IDP_DEFAULTS.clientId,
      securityEvents: { secret: eventsSecret },
      webhook: { url: `${authUrl}/webhooks/identity`, secret: webhookSecret },
    });

    // Variables go in env files, not `--var`: secrets stay off the command line, and with
    // `--env-file` wrangler reads no `.dev.vars` (a developer's real WorkOS keys stay out).
    const authEnv = join(work, "auth.env");
    writeEnvFile(authEnv, {
      SESSION_SECRET: randomBytes(32).toString("base64url"),
      ADMIN_API_TOKEN: adminToken,
      // The admin console's operators: the admins of the demo's Acme (Ada Lovelace).
      ADMIN_CONSOLE_ORGANIZATIONS: "org_01ACME00000000000000000000",
      AUTH_REDIRECT_URL: `${authUrl}/auth/callback`,
      AUTH_RETURN_ORIGINS: consumerUrl,
      SECURITY_EVENTS_WEBHOOK_URL: `${idp.url}/__local/security-events`,
      SECURITY_EVENTS_WEBHOOK_SECRET: eventsSecret,
      IDENTITY_WEBHOOK_SECRET: webhookSecret,
      // Each browser context says where it is (X-Gatehouse-Dev-Location): offline, request.cf is one placeholder.
      GATEHOUSE_DEV_LOCATION_HEADER: "1",
      ...identityVariables({ ...LOCAL_IDP_DEFAULTS, hostname: HOST, port: idp.port }),
    });
    const consumerEnv = join(work, "consumer.env");
    writeEnvFile(consumerEnv, { AUTH_LOGIN_URL: `${authUrl}/auth/login` });

    // One state directory per worker: two workerd processes starting at once on one directory
    // race on its SQLite files (seen in CI as SQLITE_BUSY at start-up). Our two workers find each
    // other in a private registry, and nobody else's `gatehouse-auth` does.
    const stateDir = (name: string) => join(work, `state-${name}`);
    const wrangler = (name: string, port: number, envFile: string, config?: string) =>
      startWranglerDev({
        name,
        cwd: root,
        ...(config ? { config } : {}),
        port,
        persistTo: stateDir(name),
        registry: join(work, "registry"),
        envFile,
        logFile: join(outDir, "logs", `${name}.log`),
      });

    const auth = await wrangler("auth-worker", authPort, authEnv);
    procs.push(auth);
    // Started together: the consumer's AUTH binding connects once the auth worker registers.
    const consumer = await wrangler(
      "consumer-worker",
      consumerPort,
      consumerEnv,
      "workers/example-consumer/wrangler.toml",
    );
    procs.push(consumer);

    await waitUntilReady(auth, () => answers200(`${authUrl}/health`), "GET /health answered 200");
    await waitUntilReady(consumer, () => bindingConnected(consumerUrl), "the AUTH service binding connected");
    return {
      authUrl,
      consumerUrl,
      idpUrl: idp.url,
      screenshotDir: outDir,
      adminToken,
      authStateDir: stateDir("auth-worker"),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The consumer's home page asks the auth worker about any cookie; until AUTH connects it says sign-in is unavailable. */
async function bindingConnected(consumerUrl: string): Promise<boolean> {
  const res = await fetch(`${consumerUrl}/`, { headers: { Cookie: "gh_session=readiness-probe" } });
  const text = await res.text();
  return res.ok && text.includes("You are not signed in.") && !text.includes("Sign-in is unavailable");
}
