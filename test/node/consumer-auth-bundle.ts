/**
 * Node-side helpers of the "consumer" project's vitest.config.ts. Miniflare loads
 * auxiliary workers without a bundler, so the auth-worker fixture
 * (test/consumer/auth-fixture) is bundled first, exactly as a deploy would
 * (`wrangler deploy --dry-run`, offline). It never deploys or touches the network.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
const WRANGLER = join(ROOT, "node_modules/wrangler/bin/wrangler.js");

/** Bundles the worker of `config` (relative to the repository root) and returns the path of its module. */
export async function bundleWorker(config: string): Promise<string> {
  const outdir = mkdtempSync(join(tmpdir(), "gatehouse-consumer-auth-"));
  process.once("exit", () => rmSync(outdir, { recursive: true, force: true }));
  await run(
    process.execPath,
    [WRANGLER, "deploy", "--dry-run", "--outdir", outdir, "--config", resolve(ROOT, config)],
    {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const script = join(outdir, "worker.js");
  if (!existsSync(script)) throw new Error(`wrangler produced no worker.js in ${outdir}`);
  return script;
}

/** A loopback port nothing listens on (it was free a moment ago): the "auth worker is down" binding. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const address = server.address();
  await new Promise<void>((ok) => server.close(() => ok()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

const compat = { compatibilityDate: "2026-11-01", compatibilityFlags: ["nodejs_compat"] };

/** What the real auth worker needs (test values; the identity provider is never called). */
const authVars = {
  AUTH_REDIRECT_URL: "https://auth.example.com/auth/callback",
  IDENTITY_API_KEY: "sk_test_unused",
  IDENTITY_CLIENT_ID: "client_unused",
};

/**
 * The `cloudflareTest` options of a project whose main worker is the example consumer (its
 * wrangler.toml beside the config) in front of the real auth worker: "gatehouse-auth" is the
 * bundled auth fixture (test/consumer/auth-fixture) with its KV, USER_SESSIONS, ORGANIZATIONS and RATE_LIMITER,
 * "gatehouse-auth-misconfigured" the same bundle without SESSION_SECRET (it refuses its
 * configuration), and AUTH_DOWN a closed loopback port: the auth worker failing for real.
 * `prefix` keeps each project's KV namespaces apart.
 */
export async function consumerWithAuthWorker(prefix: string, sessionSecret: string) {
  const authScript = await bundleWorker("test/consumer/auth-fixture/wrangler.toml");
  const downPort = await closedPort();
  const auth = { modules: true, scriptPath: authScript, modulesRoot: dirname(authScript), ...compat };
  return {
    wrangler: { configPath: "./wrangler.toml" },
    miniflare: {
      serviceBindings: { AUTH_DOWN: { external: { address: `127.0.0.1:${downPort}`, http: {} } } },
      workers: [
        {
          name: "gatehouse-auth",
          ...auth,
          bindings: { ...authVars, SESSION_SECRET: sessionSecret },
          kvNamespaces: { SESSIONS: `${prefix}-sessions` },
          durableObjects: {
            USER_SESSIONS: { className: "UserSessions", useSQLite: true },
            ORGANIZATIONS: { className: "OrganizationSessions", useSQLite: true },
            RATE_LIMITER: { className: "RateLimiterDO", useSQLite: true },
          },
        },
        {
          name: "gatehouse-auth-misconfigured",
          ...auth,
          bindings: authVars,
          kvNamespaces: { SESSIONS: `${prefix}-sessions-misconfigured` },
        },
      ],
    },
  };
}
