#!/usr/bin/env node
/**
 * `npm run consumer`: the example consumer (workers/example-consumer) under `wrangler dev` on
 * http://127.0.0.1:8789, beside `npm start` (its AUTH binding finds the running auth worker through
 * wrangler's local registry). Runs the repository's own wrangler with this Node (npm puts the
 * pinned one first), metrics off and `CLOUDFLARE_CF_FETCH_ENABLED=false`: miniflare then uses a
 * placeholder `request.cf` instead of downloading one, so an offline start prints no DNS stack
 * traces. Creates the consumer's .dev.vars from its example on first run. Arguments pass through:
 * `npm run consumer -- --port 9001`. Never prints a value of .dev.vars.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { findWrangler, runWrangler } from "./cli/wrangler.ts";

const root = resolve(import.meta.dirname, "..");
const consumer = resolve(root, "workers/example-consumer");
const devVars = resolve(consumer, ".dev.vars");
if (!existsSync(devVars)) {
  writeFileSync(devVars, readFileSync(resolve(consumer, ".dev.vars.example"), "utf8"));
  console.log("gatehouse: created workers/example-consumer/.dev.vars from its example");
}

/** The environment wrangler gets: this one, with the two switches above. */
const CONSUMER_ENV = { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

let wrangler;
try {
  wrangler = findWrangler(root);
} catch (err) {
  console.error(`gatehouse: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
const args = ["dev", "-c", "workers/example-consumer/wrangler.toml", "--show-interactive-dev-session=false"];
process.exitCode = await runWrangler(wrangler, [...args, ...process.argv.slice(2)], {
  cwd: root,
  env: { ...process.env, ...CONSUMER_ENV },
});
