/**
 * @module
 * App connections, the session object's side (issue 31): which apps hear of ended sessions (the
 * `apps` setting, `UserSessions.apps`), which timeline events concern them, the notice each one
 * gets (`notices.ts`) and its delivery over the app's service binding (`send.ts`). The outbox
 * (security-record/outbox.ts) holds one row per app and event, so a notice is sent at least once.
 * It never sends an IP, a device or a place: a notice names sessions, not people's whereabouts.
 */
import type { RevocationReceiver } from "../../../client-sdk/protocol/app-connections";

export { type AppDelivery, appDestination } from "./destinations";
export { concernsApps, noticesOf } from "./notices";
export { APP_DEADLINE_MS, APP_LEASE_MS, sendNotices } from "./send";

/** One app the auth worker tells of ended sessions: the service binding to its `RevocationReceiver`. */
export interface AppConnection {
  /** The binding name in the auth worker's env (`[[services]] binding = "…"`, entrypoint `GatehouseRevocations`). */
  binding: string;
}

/** The apps by name (`/^[a-z][a-z0-9-]{0,31}$/`): each name is its outbox destination `app:<name>`. */
export type AppConnections = Readonly<Record<string, AppConnection>>;

/** An app name: lower-case letters, digits and hyphens, starting with a letter, at most 32 characters. */
export const APP_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const BINDING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Checks an `apps` setting; `where` names the option in the error (`createAuthWorker: apps`,
 * `UserSessions.apps`). `reserved`: binding names other roles already use (each needs its own).
 */
export function checkApps(apps: unknown, where: string, reserved: readonly string[] = []): AppConnections {
  if (typeof apps !== "object" || apps === null || Array.isArray(apps)) {
    throw new TypeError(`${where} must be an object of { binding } by app name`);
  }
  const seen = new Map<string, string>();
  // Built from the values checked here, each read once (a getter cannot answer another binding later).
  const checked: Record<string, AppConnection> = Object.create(null);
  for (const [name, app] of Object.entries(apps)) {
    if (!APP_NAME.test(name)) {
      throw new TypeError(
        `${where}: ${JSON.stringify(name)} is not an app name (a-z, 0-9 and -, starting with a letter, at most 32)`,
      );
    }
    const binding = (app as { binding?: unknown } | null)?.binding;
    if (typeof binding !== "string" || !BINDING_NAME.test(binding)) {
      throw new TypeError(`${where}.${name}.binding must be a binding name, got ${JSON.stringify(binding)}`);
    }
    const other = seen.get(binding);
    if (other !== undefined) {
      throw new TypeError(`${where}: ${other} and ${name} both name the binding ${binding}; each app needs its own`);
    }
    if (reserved.includes(binding)) {
      throw new TypeError(`${where}.${name}.binding ${binding} is already the binding of another role`);
    }
    seen.set(binding, name);
    checked[name] = { binding };
  }
  return { ...checked };
}

/** The receiver bound under `binding`, or null when nothing callable is bound there. */
export function receiverOf(env: Readonly<Record<string, unknown>>, binding: string): RevocationReceiver | null {
  const bound = env[binding];
  if ((typeof bound !== "object" && typeof bound !== "function") || bound === null) return null;
  return typeof (bound as Partial<RevocationReceiver>).sessionsEnded === "function"
    ? (bound as RevocationReceiver)
    : null;
}
