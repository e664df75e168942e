#!/usr/bin/env node
/**
 * CLI of the local identity provider: `node scripts/local-idp/main.ts`. Reads LOCAL_IDP_PORT
 * (default 8788), LOCAL_IDP_API_KEY (default `sk_test_local`), LOCAL_IDP_CLIENT_ID (default
 * `client_local`), LOCAL_IDP_HOST, LOCAL_IDP_PUBLIC_URL, LOCAL_IDP_REDIRECT_ORIGINS (comma list) and
 * LOCAL_IDP_WEBHOOK_URL + LOCAL_IDP_WEBHOOK_SECRET (signed webhooks, both or neither), prints where
 * it listens and how to point the SDK at it. Never prints per-request logs or the webhook secret.
 */
import { LOCAL_IDP_DEFAULTS, startLocalIdp } from "./server.ts";
import { type WebhookConfig, webhookConfigFromEnv } from "./webhooks.ts";

const env = process.env;
const port = Number(env.LOCAL_IDP_PORT || LOCAL_IDP_DEFAULTS.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`local-idp: LOCAL_IDP_PORT must be a port number, got '${env.LOCAL_IDP_PORT}'`);
  process.exit(1);
}
const apiKey = env.LOCAL_IDP_API_KEY || LOCAL_IDP_DEFAULTS.apiKey;
const clientId = env.LOCAL_IDP_CLIENT_ID || LOCAL_IDP_DEFAULTS.clientId;
let webhook: WebhookConfig | null;
try {
  webhook = webhookConfigFromEnv(env);
} catch (err) {
  console.error(`local-idp: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
const redirectOrigins = (env.LOCAL_IDP_REDIRECT_ORIGINS ?? "")
  .split(",")
  .map((o) => o.trim())
  .filter((o) => o !== "");

const idp = await startLocalIdp({
  port,
  host: env.LOCAL_IDP_HOST || "127.0.0.1",
  apiKey,
  clientId,
  publicUrl: env.LOCAL_IDP_PUBLIC_URL || undefined,
  redirectOrigins,
  ...(webhook ? { webhook } : {}),
}).catch((err: unknown) => {
  console.error(`local-idp: could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});

const { hostname } = new URL(idp.url);
console.log(`local-idp: WorkOS-compatible identity provider on ${idp.url}  (client id ${clientId})`);
console.log(
  `local-idp: SDK: new WorkOS(apiKey, { apiHostname: "${hostname}", port: ${idp.port}, https: false, clientId })`,
);
console.log(
  webhook
    ? `local-idp: signed webhooks (WorkOS-Signature) go to ${webhook.url}; directory page: ${idp.url}/`
    : `local-idp: webhooks off (set LOCAL_IDP_WEBHOOK_URL and LOCAL_IDP_WEBHOOK_SECRET); directory page: ${idp.url}/`,
);

const stop = () => {
  idp.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
