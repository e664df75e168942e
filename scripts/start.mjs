#!/usr/bin/env node
/**
 * `npm start`: serves the auth worker with `wrangler dev` on
 * http://127.0.0.1:8787 (local state persisted in .wrangler/state, metrics
 * off). Without real IDENTITY_* credentials in .dev.vars it also starts the
 * local identity provider (scripts/local-idp) on 127.0.0.1:8788 and points
 * DefaultIdentityClient at it, so login works with no cloud account.
 * Creates .dev.vars from .dev.vars.example on first run with fresh secrets.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const devVarsPath = resolve(root, ".dev.vars");
if (!existsSync(devVarsPath)) {
  const example = readFileSync(resolve(root, ".dev.vars.example"), "utf8");
  writeFileSync(
    devVarsPath,
    example.replace(/=__RANDOM__$/gm, () => `=${randomBytes(32).toString("base64url")}`),
  );
  console.log("gatehouse: created .dev.vars with fresh local secrets");
}
// The example consumer's local values (workers/example-consumer/.dev.vars), for
// `npx wrangler dev -c workers/example-consumer/wrangler.toml` beside this worker.
const consumerVars = resolve(root, "workers/example-consumer/.dev.vars");
if (!existsSync(consumerVars)) {
  writeFileSync(consumerVars, readFileSync(resolve(root, "workers/example-consumer/.dev.vars.example"), "utf8"));
}
const devVars = Object.fromEntries(
  readFileSync(devVarsPath, "utf8")
    .split("\n")
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
);

// The auth worker's own configuration rules (workers/auth/config/rules.ts), checked before anything starts:
// the worker would otherwise answer 503 to every request.
const { checkAuthEnvironment, describeProblems } = await import("../workers/auth/config/rules.ts");
const verdict = checkAuthEnvironment(devVars);
if (!verdict.ok) {
  for (const line of describeProblems(verdict.problems)) console.error(`gatehouse: .dev.vars: ${line}`);
  console.error("gatehouse: fix .dev.vars (or delete it to get fresh local secrets) and run npm start again.");
  process.exit(1);
}

const port = process.env.PORT ?? "8787";
const vars = [];
let idp;
if (!devVars.IDENTITY_API_KEY) {
  const { startLocalIdp, LOCAL_IDP_DEFAULTS } = await import("./local-idp/index.ts");
  const idpPort = Number(process.env.LOCAL_IDP_PORT ?? LOCAL_IDP_DEFAULTS.port);
  // The provider signs and delivers its events (revoke session, change role, delete user) to our webhook.
  const webhookSecret = devVars.IDENTITY_WEBHOOK_SECRET || randomBytes(32).toString("base64url");
  idp = await startLocalIdp({
    port: idpPort,
    apiKey: LOCAL_IDP_DEFAULTS.apiKey,
    clientId: LOCAL_IDP_DEFAULTS.clientId,
    webhook: { url: `http://127.0.0.1:${port}/webhooks/identity`, secret: webhookSecret },
  });
  if (!devVars.IDENTITY_WEBHOOK_SECRET) vars.push(`IDENTITY_WEBHOOK_SECRET:${webhookSecret}`);
  vars.push(
    `IDENTITY_API_KEY:${LOCAL_IDP_DEFAULTS.apiKey}`,
    `IDENTITY_CLIENT_ID:${LOCAL_IDP_DEFAULTS.clientId}`,
    "IDENTITY_API_HOSTNAME:127.0.0.1",
    `IDENTITY_API_PORT:${idp.port}`,
    "IDENTITY_API_HTTPS:false",
  );
  console.log(
    `gatehouse: no IDENTITY_API_KEY in .dev.vars: signing in through the local identity provider at ${idp.url}`,
  );
}

const args = [
  "dev",
  "--ip",
  "127.0.0.1",
  "--port",
  port,
  "--persist-to",
  ".wrangler/state",
  "--show-interactive-dev-session=false",
];
for (const v of vars) args.push("--var", v);
const wrangler = spawn("wrangler", args, {
  cwd: root,
  stdio: ["ignore", "inherit", "inherit"],
  env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
});

console.log(
  `\ngatehouse: auth worker starting on http://127.0.0.1:${port}  (sign in: http://127.0.0.1:${port}/auth/login)\n`,
);

let closing;
/** Closes the local identity provider once, however many signals and exits ask. */
const closeIdp = () => {
  closing ??= idp?.close().catch(() => {});
  return closing;
};
const stop = () => {
  wrangler.kill("SIGINT");
  void closeIdp();
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
wrangler.on("exit", async (code) => {
  await closeIdp();
  process.exit(code ?? 0);
});
