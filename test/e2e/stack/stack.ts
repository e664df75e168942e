/**
 * The system the browser tests drive, all on 127.0.0.1 and free ports: the local identity provider
 * (in this process), `wrangler dev` of the auth worker and `wrangler dev` of the example consumer.
 * Fresh secrets, a temporary persisted state and a private dev registry per run, so a developer's
 * `npm start`, `.dev.vars` or local state never leak in. It never listens beyond loopback.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { LOCAL_IDP_DEFAULTS, type LocalIdp, startLocalIdp } from "../../../scripts/local-idp/index.ts";
import { type Managed, startProcess, waitUntilReady } from "./processes.ts";

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
}

export interface RunningStack extends E2EStack {
  stop(): Promise<void>;
}

const root = resolve(import.meta.dirname, "../../..");
const HOST = "127.0.0.1";

export async function startStack(): Promise<RunningStack> {
  const outDir = join(root, "test-results/e2e");
  mkdirSync(join(outDir, "logs"), { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "gatehouse-e2e-"));
  const procs: Managed[] = [];
  let idp: LocalIdp | undefined;
  const stop = async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await idp?.close();
    rmSync(work, { recursive: true, force: true });
  };

  try {
    idp = await startLocalIdp({ apiKey: LOCAL_IDP_DEFAULTS.apiKey, clientId: LOCAL_IDP_DEFAULTS.clientId });
    const [authPort, consumerPort] = [await freePort(), await freePort()];
    const authUrl = `http://${HOST}:${authPort}`;
    const consumerUrl = `http://${HOST}:${consumerPort}`;

    // Variables go in env files, not `--var`: secrets stay off the command line, and with
    // `--env-file` wrangler reads no `.dev.vars` (a developer's real WorkOS keys stay out).
    const authEnv = join(work, "auth.env");
    writeEnvFile(authEnv, {
      SESSION_SECRET: randomBytes(32).toString("base64url"),
      ADMIN_API_TOKEN: randomBytes(32).toString("base64url"),
      AUTH_REDIRECT_URL: `${authUrl}/auth/callback`,
      AUTH_RETURN_ORIGINS: consumerUrl,
      IDENTITY_API_KEY: LOCAL_IDP_DEFAULTS.apiKey,
      IDENTITY_CLIENT_ID: LOCAL_IDP_DEFAULTS.clientId,
      IDENTITY_API_HOSTNAME: HOST,
      IDENTITY_API_PORT: String(idp.port),
      IDENTITY_API_HTTPS: "false",
    });
    const consumerEnv = join(work, "consumer.env");
    writeEnvFile(consumerEnv, { AUTH_LOGIN_URL: `${authUrl}/auth/login` });

    const env = wranglerEnv(work);
    const wrangler = (name: string, port: number, envFile: string, extra: string[]) =>
      startProcess(
        name,
        process.execPath,
        [
          join(root, "node_modules/wrangler/bin/wrangler.js"),
          "dev",
          ...extra,
          "--ip",
          HOST,
          "--port",
          String(port),
          "--inspector-port",
          "0",
          "--persist-to",
          // One state directory per worker: two workerd processes starting at once on one
          // directory race on its SQLite files (seen in CI as SQLITE_BUSY at start-up).
          join(work, `state-${name}`),
          "--env-file",
          envFile,
          "--show-interactive-dev-session=false",
        ],
        { cwd: root, env, logPath: join(outDir, "logs", `${name}.log`) },
      );

    const auth = wrangler("auth-worker", authPort, authEnv, []);
    procs.push(auth);
    // Started together: the consumer's AUTH binding connects once the auth worker registers.
    const consumer = wrangler("consumer-worker", consumerPort, consumerEnv, [
      "-c",
      "workers/example-consumer/wrangler.toml",
    ]);
    procs.push(consumer);

    await waitUntilReady(auth, async () => (await fetch(`${authUrl}/health`)).ok, "GET /health answered 200");
    await waitUntilReady(consumer, () => bindingConnected(consumerUrl), "the AUTH service binding connected");
    return { authUrl, consumerUrl, idpUrl: idp.url, screenshotDir: outDir, stop };
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

function wranglerEnv(work: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The project's pinned Node first, as `npm run` does (wrangler's [build] command runs `node`).
    PATH: [join(root, "node_modules/.bin"), process.env.PATH ?? ""].join(delimiter),
    WRANGLER_SEND_METRICS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    // Our two workers find each other here, and nobody else's `gatehouse-auth` does.
    WRANGLER_REGISTRY_PATH: join(work, "registry"),
    WRANGLER_LOG_PATH: join(work, "wrangler-logs"),
    CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: "true",
    FORCE_COLOR: "0",
  };
  // Only the env files' values reach the workers.
  delete env.CLOUDFLARE_INCLUDE_PROCESS_ENV;
  return env;
}

function writeEnvFile(path: string, vars: Record<string, string>): void {
  writeFileSync(
    path,
    `${Object.entries(vars)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n")}\n`,
    { mode: 0o600 },
  );
}

/** A port nobody listens on right now (the kernel's pick). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolvePort(address.port) : reject()));
    });
  });
}
