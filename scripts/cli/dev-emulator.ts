/**
 * `gatehouse-workers dev --workos-emulator`: WorkOS's own emulator (scripts/workos-emulator,
 * `workos@0.14.0` installed on first use into a cache folder, loaded from there at run time; never
 * bundled, never a dependency of the package) in place of the local provider, and the variables
 * that point the worker at it for this run. Never lends or prints a secret: the relay signs with
 * the worker's own IDENTITY_WEBHOOK_SECRET, and secrets are never rewritten.
 */
import { SECRET_VARIABLES } from "../../workers/auth/config/rules.ts";
import { DEMO_ORGANIZATIONS, DEMO_USERS } from "../local-idp/demo-data.ts";
import { identityVariables } from "../local-idp/identity-env.ts";
import type { WorkosEmulatorWorld } from "../workos-emulator/world.ts";
import { EXTRA_SECRET_VARIABLES } from "./config-check.ts";
import type { EmulatorPlan } from "./dev-plan.ts";
import { CliError } from "./errors.ts";

/** What the variables need of a running emulator world. */
export type EmulatorCoordinates = Pick<
  WorkosEmulatorWorld,
  "hostname" | "port" | "apiKey" | "clientId" | "userIds" | "organizationIds"
>;

/** The person the emulator's authorize signs in without a `login_hint`: the first one seeded. */
export const FIRST_PERSON = DEMO_USERS[0]!;

/** Starts the emulator world; a failure (no registry on a first install, say) is `start_failed` in one line. */
export async function startEmulator(plan: EmulatorPlan, log: (line: string) => void): Promise<WorkosEmulatorWorld> {
  try {
    // Loaded on demand: a plain `dev` never reads it, and it imports the emulator from the cache itself.
    const { startWorkosEmulatorWorld } = await import("../workos-emulator/world.ts");
    return await startWorkosEmulatorWorld({
      log,
      ...(plan.webhook ? { webhookSecret: plan.webhook.secret, forwardTo: plan.webhook.url } : {}),
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new CliError("start_failed", `could not start WorkOS's emulator: ${message.split("\n")[0]}`);
  }
}

/**
 * The `--var NAME:value` overrides of a run against the emulator: the five IDENTITY_* that point
 * the SDK at it, then every other .dev.vars value that names a demo person or organization by our
 * local provider's id (ADMIN_CONSOLE_ORGANIZATIONS=org_01ACME…), with the emulator's id instead.
 */
export function emulatorVars(world: EmulatorCoordinates, devVars: Readonly<Record<string, string>>): string[] {
  const identity = identityVariables({
    hostname: world.hostname,
    port: world.port,
    apiKey: world.apiKey,
    clientId: world.clientId,
  });
  const vars = Object.entries(identity).map(([name, value]) => `${name}:${value}`);
  const ids = demoIdsIn(world);
  if (ids.size === 0) return vars;
  const pattern = new RegExp([...ids.keys()].join("|"), "g");
  const secrets = new Set<string>([...SECRET_VARIABLES, ...EXTRA_SECRET_VARIABLES]);
  for (const [name, value] of Object.entries(devVars)) {
    if (name.startsWith("IDENTITY_") || secrets.has(name)) continue;
    const mapped = value.replace(pattern, (id) => ids.get(id) ?? id);
    if (mapped !== value) vars.push(`${name}:${mapped}`);
  }
  return vars;
}

/** Our demo id → the emulator's, for every demo person and organization it seeded. */
function demoIdsIn(world: EmulatorCoordinates): Map<string, string> {
  const ids = new Map<string, string>();
  for (const { id } of [...DEMO_USERS, ...DEMO_ORGANIZATIONS]) {
    const theirs = world.userIds[id] ?? world.organizationIds[id];
    if (theirs !== undefined && theirs !== id) ids.set(id, theirs);
  }
  return ids;
}

/** What `dev` prints about the emulator it started: where, the webhooks, and how sign-in picks a person. */
export function emulatorLines(world: Pick<WorkosEmulatorWorld, "url">, plan: EmulatorPlan): string[] {
  const webhooks = plan.webhook
    ? `its webhooks signed again by a relay and sent to ${plan.webhook.url}`
    : "webhooks off: .dev.vars has no IDENTITY_WEBHOOK_SECRET";
  return [
    `gatehouse-workers: WorkOS's emulator on ${world.url}  (instead of the local provider; ${webhooks})`,
    `gatehouse-workers: it has no sign-in page: /auth/login signs in ${FIRST_PERSON.firstName} ${FIRST_PERSON.lastName} (${FIRST_PERSON.email}), its first person; add login_hint=<email> to the authorize URL for another`,
  ];
}
