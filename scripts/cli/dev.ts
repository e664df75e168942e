/**
 * `gatehouse-workers dev`: in a project made by `init`, checks `.dev.vars` with the worker's own
 * rules, starts the local identity provider when .dev.vars points at loopback (receiving the
 * worker's security events when .dev.vars has their secret), then runs the project's `wrangler dev`
 * and exits with its code. Refuses before starting anything; never prints a secret, and always
 * closes the provider it started.
 */
import { join } from "node:path";
import { parseCommand, stringFlag } from "./args.ts";
import type { CliContext } from "./context.ts";
import { type DevPlan, planDev, WORKER_HOST } from "./dev-plan.ts";
import { readDevVars } from "./dev-vars.ts";
import { CliError } from "./errors.ts";
import { startIdp } from "./idp.ts";
import { assertPortFree } from "./ports.ts";
import { USAGE } from "./usage.ts";
import { findWrangler, runWrangler } from "./wrangler.ts";

/** `gatehouse-workers dev [--port 8787] [--idp-port 8788]`, run in the project directory (`ctx.cwd`). */
export async function runDev(args: readonly string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommand("dev", args, { port: { type: "string" }, "idp-port": { type: "string" } });
  if (parsed.values.help) {
    ctx.out(USAGE);
    return 0;
  }
  if (parsed.positionals.length > 0) {
    throw new CliError("usage", `dev: unexpected argument '${parsed.positionals[0]}'`);
  }
  const devVars = readDevVars(join(ctx.cwd, ".dev.vars"));
  if (devVars === null) {
    throw new CliError(
      "missing_dev_vars",
      `no .dev.vars in ${ctx.cwd}: run this in a project made by \`gatehouse-workers init\``,
    );
  }
  const plan = planDev({ port: stringFlag(parsed, "port"), idpPort: stringFlag(parsed, "idp-port") }, devVars);
  const wrangler = findWrangler(ctx.cwd);
  await assertPortFree(plan.port, WORKER_HOST, "is another wrangler dev running? pick another with --port");

  const idp = plan.idp ? await startIdp(plan.idp, "is another dev-idp running? pick another with --idp-port") : null;
  try {
    if (idp && plan.idp) {
      const webhook = plan.idp.webhook ? `signed webhooks to ${plan.idp.webhook.url}` : "webhooks off";
      ctx.out(`gatehouse-workers: local identity provider on ${idp.url}  (demo people; ${webhook})`);
    } else {
      ctx.out(`gatehouse-workers: identity provider from .dev.vars (${devVars.IDENTITY_API_HOSTNAME ?? "WorkOS"})`);
    }
    for (const v of plan.vars) ctx.out(`gatehouse-workers: for this run ${v.replace(":", "=")}`);
    ctx.out(`gatehouse-workers: ${securityEventsLine(plan, idp?.url ?? null)}`);
    const origin = `http://${WORKER_HOST}:${plan.port}`;
    ctx.out(`gatehouse-workers: auth worker starting on ${origin}  (sign in: ${origin}/auth/login)`);
    return await runWrangler(wrangler, plan.wranglerArgs, { cwd: ctx.cwd, env: { ...ctx.env, ...plan.wranglerEnv } });
  } finally {
    await idp?.close();
  }
}

/** Where the worker's security events go, in one line (the URL, never the secret). */
function securityEventsLine(plan: DevPlan, idpUrl: string | null): string {
  const events = plan.securityEvents;
  if (events === null) {
    return plan.idp
      ? "security events are not sent (add SECURITY_EVENTS_WEBHOOK_SECRET to .dev.vars to see them on the provider's page)"
      : "security events are not sent as webhooks (.dev.vars needs SECURITY_EVENTS_WEBHOOK_URL and _SECRET)";
  }
  if (events.local && idpUrl !== null) {
    return `security events go to ${events.url}  (signed; listed on ${idpUrl}/)`;
  }
  return `security events go to ${events.url}  (signed; from .dev.vars)`;
}
