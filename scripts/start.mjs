#!/usr/bin/env node
/**
 * `npm start`: this repository's auth worker on http://127.0.0.1:8787 with the local identity
 * provider on :8788, through the same code as an adopter's `npx gatehouse-workers dev` (scripts/cli):
 * .dev.vars checked with the worker's own rules, the provider started when .dev.vars points at
 * loopback (its directory kept in .wrangler/state/local-idp/directory.json), then `wrangler dev`
 * (state in .wrangler/state, metrics off). A taken port is one line and exit code 1. On first run it creates
 * .dev.vars from .dev.vars.example with fresh secrets (later, it adds secrets the example gained),
 * and the example consumer's .dev.vars.
 * Arguments pass through: `npm start -- --port 9000`.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { runCli } from "./cli/cli.ts";
import { processContext } from "./cli/context.ts";

const root = resolve(import.meta.dirname, "..");
const devVarsPath = resolve(root, ".dev.vars");
const example = readFileSync(resolve(root, ".dev.vars.example"), "utf8");
const fresh = () => randomBytes(32).toString("base64url");
if (!existsSync(devVarsPath)) {
  writeFileSync(
    devVarsPath,
    example.replace(/=__RANDOM__$/gm, () => `=${fresh()}`),
    { mode: 0o600 },
  );
  console.log("gatehouse: created .dev.vars with fresh local secrets");
} else {
  // A secret the example gained since .dev.vars was made (e.g. SECURITY_EVENTS_WEBHOOK_SECRET): add it.
  const current = readFileSync(devVarsPath, "utf8");
  const has = new Set([...current.matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]));
  const missing = [...example.matchAll(/^([A-Z0-9_]+)=__RANDOM__$/gm)].map((m) => m[1]).filter((k) => !has.has(k));
  if (missing.length > 0) {
    const lines = missing.map((k) => `${k}=${fresh()}`).join("\n");
    writeFileSync(devVarsPath, `${current.replace(/\n?$/, "\n")}${lines}\n`, { mode: 0o600 });
    console.log(`gatehouse: added ${missing.join(", ")} to .dev.vars (fresh local secrets)`);
  }
}
// The example consumer's local values (workers/example-consumer/.dev.vars), for
// `npx wrangler dev -c workers/example-consumer/wrangler.toml` beside this worker.
const consumerVars = resolve(root, "workers/example-consumer/.dev.vars");
if (!existsSync(consumerVars)) {
  writeFileSync(consumerVars, readFileSync(resolve(root, "workers/example-consumer/.dev.vars.example"), "utf8"));
}

process.exitCode = await runCli(["dev", ...process.argv.slice(2)], {
  ...processContext(),
  cwd: root,
  devCommand: "npm start --",
});
