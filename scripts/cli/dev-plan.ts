/**
 * What `gatehouse-workers dev` will do, decided from the flags and `.dev.vars` before anything
 * starts: the worker's port, whether to run the local identity provider (IDENTITY_API_HOSTNAME on
 * loopback) with which webhook and security-event receiver, or WorkOS's emulator instead
 * (`--workos-emulator`), and wrangler's arguments. Pure; never prints a secret's value.
 */
import { describeProblems, isLoopbackHost } from "../../workers/auth/config/rules.ts";
import { LOCAL_IDP_DEFAULTS, type LocalIdpOptions } from "../local-idp/index.ts";
import { parsePort } from "./args.ts";
import { checkDevVars } from "./config-check.ts";
import { CliError } from "./errors.ts";

export const DEFAULT_WORKER_PORT = 8787;
export const WORKER_HOST = "127.0.0.1";

export interface DevFlags {
  port?: string | undefined;
  idpPort?: string | undefined;
  /** Run WorkOS's emulator instead of the local provider (`--workos-emulator`). */
  workosEmulator?: boolean | undefined;
}

/** WorkOS's emulator in place of the local provider: its ids and port are known once it runs (dev-emulator.ts). */
export interface EmulatorPlan {
  /**
   * Where the relay forwards the emulator's deliveries, signed with .dev.vars' IDENTITY_WEBHOOK_SECRET
   * (the worker's own), or null when .dev.vars has none (webhooks off).
   */
  webhook: { url: string; secret: string } | null;
}

export interface DevPlan {
  /** Where wrangler dev listens (on WORKER_HOST). */
  port: number;
  /** The local identity provider to start first, or null when .dev.vars names another provider. */
  idp: LocalIdpOptions | null;
  /** WorkOS's emulator to start first instead (`--workos-emulator`), else null. */
  emulator: EmulatorPlan | null;
  /** `--var NAME:value` overrides that keep .dev.vars consistent with the flags, e.g. `IDENTITY_API_PORT:9000`. */
  vars: string[];
  /** wrangler's arguments (after the executable); with the emulator, `dev` adds its variables once it runs. */
  wranglerArgs: string[];
  /** The environment added to wrangler's. */
  wranglerEnv: Record<string, string>;
  /**
   * Where the worker's signed security events go: the local provider's receiver (`local`), a URL
   * .dev.vars names, or null when they are not sent (no SECURITY_EVENTS_WEBHOOK_SECRET).
   */
  securityEvents: { url: string; local: boolean } | null;
}

/** The local provider's security-event receiver (security-event-routes.ts). */
export const SECURITY_EVENTS_PATH = "/__local/security-events";

export function planDev(flags: DevFlags, devVars: Readonly<Record<string, string>>): DevPlan {
  const port = flags.port === undefined ? DEFAULT_WORKER_PORT : parsePort(flags.port, "--port");
  const verdict = checkDevVars(devVars);
  if (!verdict.ok) {
    throw new CliError(
      "invalid_config",
      describeProblems(verdict.problems).map((line) => `.dev.vars: ${line}`),
    );
  }
  const vars: string[] = [];
  const redirect = devVars.AUTH_REDIRECT_URL;
  if (redirect !== undefined) {
    const url = new URL(redirect); // checkAuthEnvironment accepted it, so it parses
    if (url.protocol === "http:" && isLoopbackHost(url.hostname) && Number(url.port || 80) !== port) {
      url.port = String(port);
      vars.push(`AUTH_REDIRECT_URL:${url.href}`);
    }
  }
  if (flags.workosEmulator && flags.idpPort !== undefined) {
    throw new CliError(
      "usage",
      "dev: --idp-port is the local provider's; WorkOS's emulator picks a free port (drop one of them)",
    );
  }
  const idp = flags.workosEmulator ? null : localIdp(flags, devVars, port, vars);
  const secret = devVars.IDENTITY_WEBHOOK_SECRET;
  const emulator: EmulatorPlan | null = flags.workosEmulator
    ? { webhook: secret ? { url: identityWebhookUrl(port), secret } : null }
    : null;
  const securityEvents = securityEventsDestination(devVars, idp, vars);
  return {
    port,
    idp,
    emulator,
    vars,
    wranglerArgs: wranglerArgsFor(port, vars),
    wranglerEnv: { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    securityEvents,
  };
}

/** `wrangler dev` on WORKER_HOST:`port` with `vars` (`NAME:value`) as `--var` overrides. */
export function wranglerArgsFor(port: number, vars: readonly string[]): string[] {
  const args = ["dev", "--ip", WORKER_HOST, "--port", String(port), "--show-interactive-dev-session=false"];
  for (const v of vars) args.push("--var", v);
  return args;
}

/** The worker's provider-webhook route on `port`, where signed deliveries go. */
function identityWebhookUrl(workerPort: number): string {
  return `http://${WORKER_HOST}:${workerPort}/webhooks/identity`;
}

function localIdp(
  flags: DevFlags,
  devVars: Readonly<Record<string, string>>,
  workerPort: number,
  vars: string[],
): LocalIdpOptions | null {
  const hostname = devVars.IDENTITY_API_HOSTNAME?.trim();
  if (!hostname || !isLoopbackHost(hostname)) return null;
  const declared = devVars.IDENTITY_API_PORT?.trim();
  let port: number;
  if (flags.idpPort !== undefined) {
    port = parsePort(flags.idpPort, "--idp-port");
    if (declared !== String(port)) vars.push(`IDENTITY_API_PORT:${port}`);
  } else {
    port = declared ? parsePort(declared, ".dev.vars: IDENTITY_API_PORT") : LOCAL_IDP_DEFAULTS.port;
    if (!declared) vars.push(`IDENTITY_API_PORT:${port}`);
  }
  // The local provider speaks plain http; an SDK told otherwise would fail on its first call.
  if (devVars.IDENTITY_API_HTTPS !== "false") vars.push("IDENTITY_API_HTTPS:false");
  // Without a key or client id the worker could not call the provider: lend it the local ones.
  if (!devVars.IDENTITY_API_KEY) vars.push(`IDENTITY_API_KEY:${LOCAL_IDP_DEFAULTS.apiKey}`);
  if (!devVars.IDENTITY_CLIENT_ID) vars.push(`IDENTITY_CLIENT_ID:${LOCAL_IDP_DEFAULTS.clientId}`);
  const bare = hostname.replace(/^\[|\]$/g, "");
  const secret = devVars.IDENTITY_WEBHOOK_SECRET;
  const eventsSecret = devVars.SECURITY_EVENTS_WEBHOOK_SECRET;
  return {
    port,
    // An address is bound as written; a name (localhost) binds IPv4 loopback.
    host: bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare) ? bare : "127.0.0.1",
    apiKey: devVars.IDENTITY_API_KEY || LOCAL_IDP_DEFAULTS.apiKey,
    clientId: devVars.IDENTITY_CLIENT_ID || LOCAL_IDP_DEFAULTS.clientId,
    ...(secret ? { webhook: { url: identityWebhookUrl(workerPort), secret } } : {}),
    ...(eventsSecret ? { securityEvents: { secret: eventsSecret } } : {}),
  };
}

/**
 * Where security events go. With a secret but no URL in .dev.vars, the local provider receives
 * them: its URL is lent to the worker for this run (`--var`), so the loop runs on one machine.
 */
function securityEventsDestination(
  devVars: Readonly<Record<string, string>>,
  idp: LocalIdpOptions | null,
  vars: string[],
): DevPlan["securityEvents"] {
  if (!devVars.SECURITY_EVENTS_WEBHOOK_SECRET) return null;
  const declared = devVars.SECURITY_EVENTS_WEBHOOK_URL?.trim();
  if (declared) return { url: declared, local: false };
  if (!idp?.securityEvents) return null;
  const host = (idp.host ?? WORKER_HOST).includes(":") ? `[${idp.host}]` : (idp.host ?? WORKER_HOST);
  const url = `http://${host}:${idp.port}${SECURITY_EVENTS_PATH}`;
  vars.push(`SECURITY_EVENTS_WEBHOOK_URL:${url}`);
  return { url, local: true };
}
