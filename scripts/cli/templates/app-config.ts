/**
 * An app worker's configuration: `wrangler.jsonc` (the service binding AUTH to the auth worker's
 * `AuthService` entrypoint, loopback-only `wrangler dev` on the app's port), `.dev.vars` (the auth
 * worker's local login URL, no secret) and `.env` (wrangler's own settings for `npm run dev`).
 * Renders text only; never holds a value of the auth worker's secrets.
 */
import { COMPATIBILITY_DATE } from "./wrangler-config.ts";

/** Where `wrangler dev` serves the first app: beside the auth worker (8787) and the local provider (8788). */
export const DEFAULT_APP_PORT = 8789;

/** The origin an app served by `npm run dev` on `port` has, as AUTH_RETURN_ORIGINS lists it. */
export function localAppOrigin(port: number = DEFAULT_APP_PORT): string {
  return `http://127.0.0.1:${port}`;
}

export interface AppConfigInput {
  /** The app worker's name. */
  name: string;
  /** The auth worker's name: the service the AUTH binding points at. */
  authName: string;
  /** The app's local port (`wrangler dev`). */
  port: number;
}

export function renderAppWranglerConfig(input: AppConfigInput): string {
  return `// An app worker (gatehouse-workers): its pages and API are guarded by the auth worker
// ${JSON.stringify(input.authName)} over the service binding AUTH. It holds none of that worker's secrets.
// Local: \`npm run dev\` serves it on ${localAppOrigin(input.port)}, beside the auth worker's \`npm run dev\`.
{
  "$schema": "node_modules/wrangler/config-schema.json",
  "name": ${JSON.stringify(input.name)},
  "main": "src/index.ts",
  "compatibility_date": "${COMPATIBILITY_DATE}",
  "send_metrics": false,
  "observability": { "enabled": true },
  "minify": true,
  "upload_source_maps": true,
  // Only \`wrangler dev\` reads this: it listens on loopback, never on the network.
  "dev": { "ip": "127.0.0.1", "port": ${input.port}, "local_protocol": "http" },
  // AUTH_LOGIN_URL comes from .dev.vars locally. Before deploying, add the auth worker's own:
  // "vars": { "AUTH_LOGIN_URL": "https://auth.example.com/auth/login" },
  // The auth worker's RPC entrypoint: every session is resolved (and revoked) there. Locally,
  // wrangler connects it to the auth worker's running \`npm run dev\`.
  "services": [{ "binding": "AUTH", "service": ${JSON.stringify(input.authName)}, "entrypoint": "AuthService" }]
}
`;
}

/** `.dev.vars` with the auth worker's local login URL; its committed example when `example`. */
export function renderAppDevVars(loginUrl: string, example = false): string {
  const header = example
    ? ["# A template of .dev.vars (which is git-ignored): copy it to .dev.vars."]
    : ["# Local values for `npm run dev` (wrangler reads this file; it is git-ignored)."];
  return [
    ...header,
    "# No secret goes here: the auth worker keeps its secrets and answers for every session over the",
    "# service binding AUTH. A visit without a session goes to the auth worker's login page, and comes",
    "# back once the auth worker's AUTH_RETURN_ORIGINS lists this app's origin.",
    `AUTH_LOGIN_URL=${loginUrl}`,
    "",
  ].join("\n");
}

/** `.env`: what wrangler reads for itself when it starts (not the worker's values, which are in .dev.vars). */
export function renderAppDotEnv(): string {
  return [
    "# wrangler's own settings for `npm run dev` (not the worker's values: those are in .dev.vars).",
    "# A placeholder `request.cf` instead of one downloaded at every start (offline, that download",
    "# prints a DNS error), as `gatehouse-workers dev` does for the auth worker.",
    "CLOUDFLARE_CF_FETCH_ENABLED=false",
    "",
  ].join("\n");
}
