/**
 * Starting the local identity provider for `dev-idp` and `dev`: its options from flags and the
 * LOCAL_IDP_* variables (flags win), a start that turns "port in use" into one line, and the
 * IDENTITY_* lines a worker's .dev.vars needs. Never prints the webhook or security-events secret.
 */

import { join } from "node:path";
import {
  identityVariables,
  LOCAL_IDP_DEFAULTS,
  type LocalIdp,
  type LocalIdpOptions,
  startLocalIdp,
} from "../local-idp/index.ts";
import { parsePort } from "./args.ts";
import { CliError, isAddressInUse } from "./errors.ts";

/**
 * Where `dev` and `dev-idp` keep the provider's directory, relative to the project: beside the
 * worker's local state (`wrangler dev` persists to `.wrangler/state`; `.wrangler/` is git-ignored).
 */
export const DIRECTORY_FILE = ".wrangler/state/local-idp/directory.json";

/** The directory file of the project in `cwd`. */
export function directoryFileIn(cwd: string): string {
  return join(cwd, DIRECTORY_FILE);
}

export interface IdpFlags {
  port?: string | undefined;
  host?: string | undefined;
  webhookUrl?: string | undefined;
  webhookSecret?: string | undefined;
  securityEventsSecret?: string | undefined;
}

/** The provider's options from `flags`, then `env` (LOCAL_IDP_*), then the defaults. */
export function idpOptionsFrom(flags: IdpFlags, env: Readonly<Record<string, string | undefined>>): LocalIdpOptions {
  const pick = (flag: string | undefined, variable: string) => {
    const value = flag ?? env[variable];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };
  const portText = pick(flags.port, "LOCAL_IDP_PORT");
  const port =
    portText === undefined
      ? LOCAL_IDP_DEFAULTS.port
      : parsePort(portText, flags.port === undefined ? "LOCAL_IDP_PORT" : "--port", true);
  const webhookUrl = pick(flags.webhookUrl, "LOCAL_IDP_WEBHOOK_URL");
  const webhookSecret = pick(flags.webhookSecret, "LOCAL_IDP_WEBHOOK_SECRET");
  if ((webhookUrl === undefined) !== (webhookSecret === undefined)) {
    throw new CliError(
      "usage",
      "a webhook needs both a URL and a secret (--webhook-url and --webhook-secret, or LOCAL_IDP_WEBHOOK_URL and LOCAL_IDP_WEBHOOK_SECRET)",
    );
  }
  if (webhookUrl !== undefined) assertUrl(webhookUrl, "the webhook URL");
  const securityEventsSecret = pick(flags.securityEventsSecret, "LOCAL_IDP_SECURITY_EVENTS_SECRET");
  const publicUrl = pick(undefined, "LOCAL_IDP_PUBLIC_URL");
  if (publicUrl !== undefined) assertUrl(publicUrl, "LOCAL_IDP_PUBLIC_URL");
  const redirectOrigins = (env.LOCAL_IDP_REDIRECT_ORIGINS ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin !== "");
  for (const origin of redirectOrigins) assertUrl(origin, "LOCAL_IDP_REDIRECT_ORIGINS");
  return {
    port,
    host: pick(flags.host, "LOCAL_IDP_HOST") ?? "127.0.0.1",
    apiKey: pick(undefined, "LOCAL_IDP_API_KEY") ?? LOCAL_IDP_DEFAULTS.apiKey,
    clientId: pick(undefined, "LOCAL_IDP_CLIENT_ID") ?? LOCAL_IDP_DEFAULTS.clientId,
    ...(publicUrl === undefined ? {} : { publicUrl }),
    redirectOrigins,
    ...(webhookUrl !== undefined && webhookSecret !== undefined
      ? { webhook: { url: webhookUrl, secret: webhookSecret } }
      : {}),
    ...(securityEventsSecret === undefined ? {} : { securityEvents: { secret: securityEventsSecret } }),
  };
}

/** Starts the provider; a taken port is `port_in_use` with `hint`, anything else `start_failed`. */
export async function startIdp(options: LocalIdpOptions, hint: string): Promise<LocalIdp> {
  try {
    return await startLocalIdp(options);
  } catch (err) {
    if (isAddressInUse(err)) {
      throw new CliError("port_in_use", `port ${options.port} is already in use (${hint})`);
    }
    const message = err instanceof Error ? err.message : String(err);
    throw new CliError("start_failed", `could not start the local identity provider: ${message}`);
  }
}

/** The five lines that point a worker's WorkOS SDK at `idp` (the address it listens on, over http). */
export function identityLines(idp: LocalIdp, options: Pick<LocalIdpOptions, "apiKey" | "clientId" | "host">): string[] {
  const host = (options.host ?? "127.0.0.1").replace(/^\[|\]$/g, "");
  const hostname = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const variables = identityVariables({ apiKey: options.apiKey, clientId: options.clientId, hostname, port: idp.port });
  return Object.entries(variables).map(([name, value]) => `${name}=${value}`);
}

function assertUrl(value: string, source: string): void {
  if (!URL.canParse(value)) throw new CliError("usage", `${source}: '${value}' is not a URL`);
}
