#!/usr/bin/env node
/**
 * `npm start`: serves the auth worker with `wrangler dev` on
 * http://127.0.0.1:8787, local state persisted in .wrangler/state, metrics off.
 * Creates .dev.vars from .dev.vars.example on first run with fresh random secrets.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const devVars = resolve(root, ".dev.vars");
if (!existsSync(devVars)) {
  const example = readFileSync(resolve(root, ".dev.vars.example"), "utf8");
  const filled = example.replace(/=__RANDOM__$/gm, () => `=${randomBytes(32).toString("base64url")}`);
  writeFileSync(devVars, filled);
  console.log("gatehouse: created .dev.vars with fresh local secrets");
}

const port = process.env.PORT ?? "8787";
const wrangler = spawn(
  "wrangler",
  [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    port,
    "--persist-to",
    ".wrangler/state",
    "--show-interactive-dev-session=false",
  ],
  {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  },
);

console.log(`\ngatehouse: auth worker starting on http://127.0.0.1:${port}  (health: /health)\n`);

const stop = () => wrangler.kill("SIGINT");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
wrangler.on("exit", (code) => process.exit(code ?? 0));
