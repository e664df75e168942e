/**
 * @module
 * The admin console at `/admin` (pages and forms; the JSON admin API beside it keeps its bearer
 * token): find a person by email or id, see their sessions (device, place), timeline, receipts and
 * security-event deliveries, sign out one session or all with the receipt shown, end an
 * organization's sessions, and read the console's own activity. Every page is `private, no-store`
 * with the account pages' CSP; every state change is a POST behind `CsrfMiddleware`, whose tokens are
 * bound to the break-glass session while one is open. Exists when an
 * admin token or `ADMIN_CONSOLE_ORGANIZATIONS` is configured and the session objects are bound.
 * One module per concern registers its routes; the gate comes first (its guard covers the rest).
 */
import type { Application } from "../../../../client-sdk/core/application";
import { consoleOrganizations } from "../../config/rules";
import { type AdminTokenEnv, adminTokens } from "../tokens";
import { registerBreakGlass } from "./routes/break-glass";
import { consoleContext } from "./routes/context";
import { registerConsoleGate } from "./routes/gate";
import { registerOrganizations } from "./routes/organizations";
import { registerPeople } from "./routes/people";
import { registerReceipts } from "./routes/receipts";
import { CONSOLE_PATH } from "./views";

/** True for the console's own paths (the JSON admin API's bearer check skips them). */
export function isConsolePath(path: string): boolean {
  return path === CONSOLE_PATH || path === `${CONSOLE_PATH}/` || path.startsWith(`${CONSOLE_PATH}/console`);
}

export function registerAdminConsole<
  E extends AdminTokenEnv & { SESSIONS: KVNamespace; ADMIN_CONSOLE_ORGANIZATIONS?: string },
>(app: Application<E>): void {
  const tokens = adminTokens(app.env);
  const organizations = consoleOrganizations(app.env.ADMIN_CONSOLE_ORGANIZATIONS) ?? [];
  if (tokens.length === 0 && organizations.length === 0) return;
  const shared = consoleContext(app, tokens, organizations);
  registerConsoleGate(app, shared);
  registerBreakGlass(app, shared);
  registerPeople(app, shared);
  registerOrganizations(app, shared);
  registerReceipts(app, shared);
}
