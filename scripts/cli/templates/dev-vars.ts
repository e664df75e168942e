/**
 * The generated project's `.dev.vars` (local secrets, mode 0600, git-ignored) and its committed
 * `.dev.vars.example` (the same keys, `__RANDOM__` for each secret). The identity lines point the
 * WorkOS SDK at the local identity provider. Renders text only; never invents a secret itself.
 */
import { identityVariables, LOCAL_IDP_DEFAULTS } from "../../local-idp/index.ts";
import { localAppOrigin } from "./app-config.ts";

/** The secrets `init` generates, in file order. */
export const GENERATED_SECRETS = [
  "SESSION_SECRET",
  "ADMIN_API_TOKEN",
  "IDENTITY_WEBHOOK_SECRET",
  "SECURITY_EVENTS_WEBHOOK_SECRET",
] as const;

export type GeneratedSecrets = Record<(typeof GENERATED_SECRETS)[number], string>;

/** Where `npm run dev` serves the worker; the callback registered with the identity provider. */
export const LOCAL_REDIRECT_URL = "http://127.0.0.1:8787/auth/callback";

/**
 * The origins a sign-in may return to: the first app's (`init --app` serves it there), so a running
 * auth worker already sends that app's people back to it. Loopback only, in a local file.
 */
export const DEFAULT_RETURN_ORIGINS = localAppOrigin();

/** The five lines that point the worker at the local identity provider on `port`. */
export function localIdentityLines(port: number = LOCAL_IDP_DEFAULTS.port, hostname = "127.0.0.1"): string[] {
  const variables = identityVariables({ ...LOCAL_IDP_DEFAULTS, hostname, port });
  return Object.entries(variables).map(([name, value]) => `${name}=${value}`);
}

/** `.dev.vars` with `secrets`; `.dev.vars.example` when `secrets` is null. */
export function renderDevVars(secrets: GeneratedSecrets | null): string {
  const value = (name: keyof GeneratedSecrets) => (secrets ? secrets[name] : "__RANDOM__");
  const header = secrets
    ? [
        "# Local values for `npm run dev` (wrangler reads this file). Never commit it: the secrets",
        "# below are fresh random values made by `gatehouse-workers init`, for this machine only.",
      ]
    : [
        "# A template of .dev.vars (which is git-ignored). Copy it to .dev.vars and replace each",
        "# __RANDOM__ with a fresh secret: openssl rand -base64 32",
      ];
  return [
    ...header,
    "# Production values are set with `npx wrangler secret put <NAME>` instead (see README.md).",
    `SESSION_SECRET=${value("SESSION_SECRET")}`,
    `ADMIN_API_TOKEN=${value("ADMIN_API_TOKEN")}`,
    "# Verifies the identity provider's signed webhooks (with WorkOS: the endpoint's secret).",
    `IDENTITY_WEBHOOK_SECRET=${value("IDENTITY_WEBHOOK_SECRET")}`,
    "# Signs the users' security events the worker sends to SECURITY_EVENTS_WEBHOOK_URL. `npm run dev`",
    "# points that at the local identity provider, which lists them on http://127.0.0.1:8788/.",
    `SECURITY_EVENTS_WEBHOOK_SECRET=${value("SECURITY_EVENTS_WEBHOOK_SECRET")}`,
    `AUTH_REDIRECT_URL=${LOCAL_REDIRECT_URL}`,
    "# Origins of your apps that a sign-in may return to (comma-separated): the first app made with",
    "# `gatehouse-workers init --app` is served here; each other app's `init --app` adds its own.",
    "# A running `npm run dev` reads this file only when it starts: restart it after a change.",
    `AUTH_RETURN_ORIGINS=${DEFAULT_RETURN_ORIGINS}`,
    "",
    "# The local identity provider: `npm run dev` starts it on 127.0.0.1 at IDENTITY_API_PORT and",
    "# its sign-in page lists demo people. To sign in through WorkOS instead, replace these five",
    "# lines with your WorkOS credentials (IDENTITY_API_KEY=sk_test_..., IDENTITY_CLIENT_ID=client_...)",
    "# and drop IDENTITY_API_HOSTNAME, IDENTITY_API_PORT and IDENTITY_API_HTTPS.",
    ...localIdentityLines(),
    "",
  ].join("\n");
}
