/**
 * `gatehouse-workers dev`: in a project made by `init`, checks `.dev.vars` with the worker's own
 * rules, starts the local identity provider when .dev.vars points at loopback (receiving the
 * worker's security events when .dev.vars has their secret; its directory kept beside wrangler's
 * local state, in `.wrangler/state/local-idp/directory.json`), or WorkOS's emulator instead with
 * `--workos-emulator` (dev-emulator.ts), then runs the project's `wrangler dev` and exits with its
 * code. Refuses before starting anything; never prints a secret, and always closes the provider it
 * started.
 */
import { join } from "node:path";
import { parseCommand, stringFlag } from "./args.ts";
import type { CliContext } from "./context.ts";
import { emulatorLines, emulatorVars, startEmulator } from "./dev-emulator.ts";
import { type DevPlan, planDev, WORKER_HOST, wranglerArgsFor } from "./dev-plan.ts";
import { readDevVars } from "./dev-vars.ts";
import { CliError } from "./errors.ts";
import { DIRECTORY_FILE, directoryFileIn, startIdp } from "./idp.ts";
import { isPortFree } from "./ports.ts";
import { USAGE } from "./usage.ts";
import { findWrangler, runWrangler } from "./wrangler.ts";

/**
 * `gatehouse-workers dev [--port 8787] [--idp-port 8788 | --workos-emulator]`, run in the project
 * directory (`ctx.cwd`).
 */
export async function runDev(args: readonly string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommand("dev", args, {
    port: { type: "string" },
    "idp-port": { type: "string" },
    "workos-emulator": { type: "boolean" },
  });
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
  const plan = planDev(
    {
      port: stringFlag(parsed, "port"),
      idpPort: stringFlag(parsed, "idp-port"),
      workosEmulator: parsed.values["workos-emulator"] === true,
    },
    devVars,
  );
  const wrangler = findWrangler(ctx.cwd);
  const command = ctx.devCommand ?? "gatehouse-workers dev";
  // The port flags given, repeated in a hint so that following it keeps them.
  const given: PortFlag[] = [
    ...(stringFlag(parsed, "port") === undefined ? [] : [{ flag: "--port", port: plan.port }]),
    ...(stringFlag(parsed, "idp-port") === undefined || !plan.idp
      ? []
      : [{ flag: "--idp-port", port: plan.idp.port ?? 0 }]),
  ];
  await assertPortsFree(plan, command, given);

  const idp = plan.idp
    ? await startIdp(
        { ...plan.idp, directoryFile: directoryFileIn(ctx.cwd), warn: ctx.err },
        portHint(command, [{ flag: "--idp-port", port: plan.idp.port ?? 0 }], given),
      )
    : null;
  // Never both: the plan runs the emulator only in place of the local provider.
  const emulator = plan.emulator ? await startEmulator(plan.emulator, ctx.err) : null;
  try {
    // The emulator's port and ids are known once it runs: its variables join the plan's then.
    const vars = emulator ? [...plan.vars, ...emulatorVars(emulator, devVars)] : plan.vars;
    if (emulator && plan.emulator) {
      for (const line of emulatorLines(emulator, plan.emulator)) ctx.out(line);
    } else if (idp && plan.idp) {
      const webhook = plan.idp.webhook ? `signed webhooks to ${plan.idp.webhook.url}` : "webhooks off";
      ctx.out(`gatehouse-workers: local identity provider on ${idp.url}  (directory in ${DIRECTORY_FILE}; ${webhook})`);
    } else {
      ctx.out(`gatehouse-workers: identity provider from .dev.vars (${devVars.IDENTITY_API_HOSTNAME ?? "WorkOS"})`);
    }
    for (const v of vars) ctx.out(`gatehouse-workers: for this run ${v.replace(":", "=")}`);
    ctx.out(`gatehouse-workers: ${securityEventsLine(plan, idp?.url ?? null)}`);
    const origin = `http://${WORKER_HOST}:${plan.port}`;
    ctx.out(`gatehouse-workers: auth worker starting on ${origin}  (sign in: ${origin}/auth/login)`);
    const wranglerArgs = emulator ? wranglerArgsFor(plan.port, vars) : plan.wranglerArgs;
    return await runWrangler(wrangler, wranglerArgs, { cwd: ctx.cwd, env: { ...ctx.env, ...plan.wranglerEnv } });
  } finally {
    await emulator?.close();
    await idp?.close();
  }
}

/**
 * The worker's port and the provider's, checked before anything starts: one line names every
 * taken one and the command that picks others (`npm start -- --port 9000`), never a stack trace.
 */
async function assertPortsFree(plan: DevPlan, command: string, given: readonly PortFlag[]): Promise<void> {
  const taken: PortFlag[] = [];
  if (!(await isPortFree(plan.port, WORKER_HOST))) taken.push({ flag: "--port", port: plan.port });
  const idpPort = plan.idp?.port;
  if (
    plan.idp &&
    idpPort !== undefined &&
    idpPort !== 0 &&
    !(await isPortFree(idpPort, plan.idp.host ?? WORKER_HOST))
  ) {
    taken.push({ flag: "--idp-port", port: idpPort });
  }
  if (taken.length === 0) return;
  const ports = taken.map((t) => t.port).join(" and ");
  const verb = taken.length === 1 ? `port ${ports} is` : `ports ${ports} are`;
  throw new CliError("port_in_use", `${verb} already in use (${portHint(command, taken, given)})`);
}

interface PortFlag {
  flag: string;
  port: number;
}

/**
 * "is another npm start running? stop it, or pick another: npm start -- --port 9000": a free port
 * for each taken one, and the port flags given that are not taken, as they were.
 */
function portHint(command: string, taken: readonly PortFlag[], given: readonly PortFlag[] = []): string {
  const running = command.replace(/ --$/, "");
  const picks = ["--port", "--idp-port"]
    .map((flag) => {
      const busy = taken.find((t) => t.flag === flag);
      if (busy) return `${flag} ${alternative(flag, busy.port)}`;
      const kept = given.find((g) => g.flag === flag);
      return kept ? `${flag} ${kept.port}` : null;
    })
    .filter((pick) => pick !== null)
    .join(" ");
  return `is another ${running} running? stop it, or pick ${taken.length === 1 ? "another" : "others"}: ${command} ${picks}`;
}

/** 9000 for the worker and 9001 for the provider, unless that is the taken port itself. */
function alternative(flag: string, taken: number): number {
  const preferred = flag === "--port" ? 9000 : 9001;
  return taken === preferred ? preferred + 2 : preferred;
}

/** Where the worker's security events go, in one line (the URL, never the secret). */
function securityEventsLine(plan: DevPlan, idpUrl: string | null): string {
  const events = plan.securityEvents;
  if (events === null && plan.emulator) {
    return "security events are not sent (WorkOS's emulator has no security-event inbox; the local provider lists them)";
  }
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
