/**
 * `gatehouse-workers dev-idp`: runs the local WorkOS-compatible identity provider until SIGINT or
 * SIGTERM, printing where it listens and the IDENTITY_* lines a worker's .dev.vars needs. The
 * same settings as `node scripts/local-idp/main.ts` (which runs this). Its directory (people, roles,
 * organizations) is kept in the project's `.wrangler/state/local-idp/directory.json` unless told
 * otherwise. It never logs requests, the webhook secret or the security-events secret.
 */
import { isAbsolute, join, relative } from "node:path";
import { parseCommand, stringFlag } from "./args.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { directoryFileIn, identityLines, idpOptionsFrom, startIdp } from "./idp.ts";
import { waitForStopSignal } from "./signals.ts";
import { USAGE } from "./usage.ts";

export interface DevIdpDeps {
  /** Resolves when the provider should stop. Default: the first SIGINT or SIGTERM. */
  untilStop?: () => Promise<unknown>;
}

/**
 * `gatehouse-workers dev-idp [--port 8788] [--host 127.0.0.1] [--webhook-url URL --webhook-secret S]
 * [--security-events-secret S] [--directory-file PATH | --in-memory]`.
 */
export async function runDevIdp(args: readonly string[], ctx: CliContext, deps: DevIdpDeps = {}): Promise<number> {
  const parsed = parseCommand("dev-idp", args, {
    port: { type: "string" },
    host: { type: "string" },
    "webhook-url": { type: "string" },
    "webhook-secret": { type: "string" },
    "security-events-secret": { type: "string" },
    "directory-file": { type: "string" },
    "in-memory": { type: "boolean" },
  });
  if (parsed.values.help) {
    ctx.out(USAGE);
    return 0;
  }
  if (parsed.positionals.length > 0) {
    throw new CliError("usage", `dev-idp: unexpected argument '${parsed.positionals[0]}'`);
  }
  const options = idpOptionsFrom(
    {
      port: stringFlag(parsed, "port"),
      host: stringFlag(parsed, "host"),
      webhookUrl: stringFlag(parsed, "webhook-url"),
      webhookSecret: stringFlag(parsed, "webhook-secret"),
      securityEventsSecret: stringFlag(parsed, "security-events-secret"),
    },
    ctx.env,
  );
  const directoryFile = directoryFileFrom(
    stringFlag(parsed, "directory-file"),
    parsed.values["in-memory"] === true,
    ctx,
  );
  const idp = await startIdp(
    { ...options, ...(directoryFile === null ? {} : { directoryFile }), warn: ctx.err },
    "is another dev-idp running?",
  );
  // Listen before saying it is ready: whoever reads the first line may send the signal at once.
  const stopped = (deps.untilStop ?? waitForStopSignal)();
  ctx.out(`gatehouse-workers: local identity provider on ${idp.url}  (client id ${options.clientId})`);
  ctx.out(`gatehouse-workers: directory page (demo people, roles, sessions, webhooks): ${idp.url}/`);
  ctx.out(
    directoryFile === null
      ? "gatehouse-workers: the directory is kept in memory only (--in-memory)"
      : `gatehouse-workers: the directory is kept in ${shown(directoryFile, ctx.cwd)} (delete it, or POST /__local/reset, for the demo one)`,
  );
  ctx.out(
    options.webhook
      ? `gatehouse-workers: signed webhooks (WorkOS-Signature) go to ${options.webhook.url}`
      : "gatehouse-workers: webhooks off (--webhook-url and --webhook-secret turn them on)",
  );
  ctx.out(
    options.securityEvents
      ? `gatehouse-workers: the auth worker's security events are received at ${idp.url}/__local/security-events (set its SECURITY_EVENTS_WEBHOOK_URL to that, with the same secret)`
      : "gatehouse-workers: security-event receiver off (LOCAL_IDP_SECURITY_EVENTS_SECRET turns it on)",
  );
  ctx.out("gatehouse-workers: a worker's .dev.vars for this provider:");
  for (const line of identityLines(idp, options)) ctx.out(line);
  ctx.out("gatehouse-workers: Ctrl-C stops it.");

  await stopped;
  await idp.close();
  return 0;
}

/** `--directory-file`, else LOCAL_IDP_DIRECTORY_FILE, else the project's; null with `--in-memory`. */
function directoryFileFrom(flag: string | undefined, inMemory: boolean, ctx: CliContext): string | null {
  if (inMemory) {
    if (flag !== undefined) throw new CliError("usage", "dev-idp: --directory-file and --in-memory exclude each other");
    return null;
  }
  const chosen = (flag ?? ctx.env.LOCAL_IDP_DIRECTORY_FILE)?.trim();
  if (chosen === undefined || chosen === "") return directoryFileIn(ctx.cwd);
  return isAbsolute(chosen) ? chosen : join(ctx.cwd, chosen);
}

/** A path under `cwd` as a relative one (shorter to read), else as given. */
function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}
