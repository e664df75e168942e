/**
 * @module
 * The JSON admin API: a user's sessions (sessions.ts), the security record (security.ts) and the
 * shared-signals streams with their delivery log (streams.ts), behind
 * `Authorization: Bearer <token>` (../tokens.ts, each token with a label that the timeline names);
 * missing → 401, wrong → 403. Without a token configured the routes are not registered at all (404).
 * The console's own paths are left to the console.
 */
import type { Application } from "../../../../client-sdk/core/application";
import { setRequestValue } from "../../../../client-sdk/core/middleware";
import { SessionManager } from "../../session/session-manager";
import { isConsolePath } from "../console";
import { OperatorLog } from "../operator-log";
import { AdminLabelKey, type AdminTokenEnv, adminLabelOf, adminTokens } from "../tokens";
import { json } from "./respond";
import { registerSecurityRoutes } from "./security";
import { registerSessionRoutes } from "./sessions";
import { registerStreamRoutes } from "./streams";

export function registerAdminApi<E extends AdminTokenEnv & { SESSIONS: KVNamespace }>(app: Application<E>): void {
  const tokens = adminTokens(app.env);
  if (tokens.length === 0) return;
  const sessions = () => app.container.resolve(SessionManager);
  const log = () => new OperatorLog(app.env.SESSIONS, sessions().config.clock);

  app.hono.use("/admin/*", async (c, next) => {
    if (isConsolePath(c.req.path)) return next();
    const label = await adminLabelOf(c.req.raw, tokens);
    if (label === "missing") {
      return Response.json(
        { error: "unauthenticated", message: "Send Authorization: Bearer <ADMIN_API_TOKEN>" },
        { status: 401, headers: { "WWW-Authenticate": 'Bearer realm="gatehouse-admin"', "Cache-Control": "no-store" } },
      );
    }
    if (label === null) return json(403, { error: "forbidden", message: "The admin token is not valid" });
    setRequestValue(c.req.raw, AdminLabelKey, label.label);
    await next();
  });

  registerSessionRoutes(app, sessions, log);
  registerSecurityRoutes(app, sessions, log);
  registerStreamRoutes(app);
}
