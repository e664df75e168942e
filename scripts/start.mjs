#!/usr/bin/env node
/**
 * `npm start`: this repository's auth worker on http://127.0.0.1:8787 with the local identity
 * provider on :8788, through the same code as an adopter's `npx gatehouse-workers dev` (scripts/cli):
 * .dev.vars checked with the worker's own rules, the provider started when .dev.vars points at
 * loopback, then `wrangler dev` (state in .wrangler/state, metrics off). On first run it creates
 * .dev.vars from .dev.vars.example with fresh secrets, and the example consumer's .dev.vars.
 * Arguments pass through: `npm start -- --port 9000`.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { runCli } from "./cli/cli.ts";
import { processContext } from "./cli/context.ts";

const root = resolve(import.meta.dirname, "..");
const devVarsPath = resolve(root, ".dev.vars");
if (!existsSync(devVarsPath)) {
  const example = readFileSync(resolve(root, ".dev.vars.example"), "utf8");
  writeFileSync(
    devVarsPath,
    example.replace(/=__RANDOM__$/gm, () => `=${randomBytes(32).toString("base64url")}`),
    {
      mode: 0o600,
    },
  );
  console.log("gatehouse: created .dev.vars with fresh local secrets");
}
// The example consumer's local values (workers/example-consumer/.dev.vars), for
// `npx wrangler dev -c workers/example-consumer/wrangler.toml` beside this worker.
const consumerVars = resolve(root, "workers/example-consumer/.dev.vars");
if (!existsSync(consumerVars)) {
  writeFileSync(consumerVars, readFileSync(resolve(root, "workers/example-consumer/.dev.vars.example"), "utf8"));
}

process.exitCode = await runCli(["dev", ...process.argv.slice(2)], { ...processContext(), cwd: root });
