/**
 * @module
 * The admin room: one rate-limit family (`admin`) over `/admin/*`, then its surfaces for operators:
 * the admin console (`console/`, pages at `/admin`) and the JSON admin API (`api/`, bearer token).
 * The third, the organization console (`organization-console/`, `/account/organizations`), is
 * mounted by the account routes, behind their session and CSRF guards. Shared by the surfaces: the
 * admin tokens (`tokens.ts`) and the operator log (`operator-log.ts`).
 */
import type { Application } from "../../../client-sdk/core/application";
import { type LimitsEnv, routeLimiterFor } from "../limits";
import { registerAdminApi } from "./api";
import { registerAdminConsole } from "./console";
import type { AdminTokenEnv } from "./tokens";

export function registerAdminRoutes<
  E extends AdminTokenEnv &
    LimitsEnv & { SESSIONS: KVNamespace; USER_SESSIONS?: unknown; ADMIN_CONSOLE_ORGANIZATIONS?: string },
>(app: Application<E>): void {
  const limiter = routeLimiterFor(app, "admin");
  // "/admin/*" matches "/admin" too (the console's home): one count per request.
  if (limiter) app.hono.use("/admin/*", limiter);
  // The console (pages for people) beside the JSON API; it decides its own access.
  if (app.env.USER_SESSIONS) registerAdminConsole(app);
  registerAdminApi(app);
}
