/**
 * The world `npm run load` runs against, all on 127.0.0.1: the local
 * identity provider, `wrangler dev` of the auth worker and of the example
 * consumer, each with its own temporary `--persist-to` directory, fresh random
 * secrets (never the developer's `.dev.vars`) and a private dev registry.
 * `restart()` stops both workers and starts them again on the same state;
 * `close()` stops everything it started and removes the temporary directory.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  answers200,
  freePort,
  REPO_ROOT,
  startWranglerDev,
  type WranglerDev,
  type WranglerDevOptions,
  waitUntilReady,
  writeEnvFile,
} from "../../tooling/dev/index.ts";
import { identityVariables, LOCAL_IDP_DEFAULTS, type LocalIdp, startLocalIdp } from "../local-idp/index.ts";

type DevServer = WranglerDev;

/** Starts `wrangler dev` and resolves once `readyPath` answers 200. */
async function startDev(options: WranglerDevOptions, readyPath: string): Promise<DevServer> {
  const dev = await startWranglerDev(options);
  try {
    await waitUntilReady(dev, () => answers200(`${dev.url}${readyPath}`), `GET ${readyPath} answered 200`);
  } catch (err) {
    await dev.stop();
    throw err;
  }
  return dev;
}

export interface World {
  idp: LocalIdp;
  auth: DevServer;
  consumer: DevServer;
  adminToken: string;
  /** Directory of wrangler's logs and local state. */
  dir: string;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startWorld(log: (line: string) => void): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-load-"));
  const persistTo = join(dir, "state");
  const registry = join(dir, "registry");
  mkdirSync(registry);
  const adminToken = randomBytes(32).toString("base64url");
  let idp: LocalIdp | undefined;
  const servers: { auth?: DevServer; consumer?: DevServer } = {};
  const close = async () => {
    await servers.consumer?.stop();
    await servers.auth?.stop();
    await idp?.close();
    if (!process.env.GATEHOUSE_LOAD_KEEP) rmSync(dir, { recursive: true, force: true });
  };
  try {
    idp = await startLocalIdp({ port: 0, apiKey: LOCAL_IDP_DEFAULTS.apiKey, clientId: LOCAL_IDP_DEFAULTS.clientId });
    const authPort = await freePort();
    const consumerPort = await freePort();
    const envFile = join(dir, "auth.env");
    writeEnvFile(envFile, {
      SESSION_SECRET: randomBytes(32).toString("base64url"),
      ADMIN_API_TOKEN: adminToken,
      AUTH_REDIRECT_URL: `http://127.0.0.1:${authPort}/auth/callback`,
      ...identityVariables({ ...LOCAL_IDP_DEFAULTS, hostname: "127.0.0.1", port: idp.port }),
    });
    const authOptions: WranglerDevOptions = {
      name: "auth",
      cwd: REPO_ROOT,
      config: "wrangler.toml",
      port: authPort,
      persistTo,
      registry,
      envFile,
      logFile: join(dir, "auth.log"),
    };
    const consumerOptions: WranglerDevOptions = {
      name: "consumer",
      cwd: REPO_ROOT,
      config: "workers/example-consumer/wrangler.toml",
      port: consumerPort,
      persistTo: join(dir, "consumer-state"),
      registry,
      vars: { AUTH_LOGIN_URL: `http://127.0.0.1:${authPort}/auth/login` },
      logFile: join(dir, "consumer.log"),
    };
    const startBoth = async () => {
      servers.auth = await startDev(authOptions, "/health");
      log(`auth worker      ${servers.auth.url}  (wrangler dev, state in ${persistTo})`);
      servers.consumer = await startDev(consumerOptions, "/");
      log(`example consumer ${servers.consumer.url}  (wrangler dev, AUTH bound to the auth worker)`);
    };
    await startBoth();
    return {
      idp,
      get auth() {
        return servers.auth!;
      },
      get consumer() {
        return servers.consumer!;
      },
      adminToken,
      dir,
      async restart() {
        await servers.consumer?.stop();
        await servers.auth?.stop();
        servers.consumer = undefined;
        servers.auth = undefined;
        log("stopped both workers; starting them again on the same --persist-to directory");
        await startBoth();
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
