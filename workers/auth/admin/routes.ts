/**
 * @module
 * The admin endpoint: list a user's sessions, revoke one session, revoke all of
 * a user's sessions, and (security-routes.ts) timelines, devices, receipts and
 * the organizations' kill switch and policy. `Authorization: Bearer <token>`
 * (tokens.ts, each with a label that the timeline names); missing → 401, wrong
 * → 403. Without a token configured the routes are not registered at all (404).
 */
import type { Application } from "../../../client-sdk/core/application";
import { setRequestValue } from "../../../client-sdk/core/middleware";
import { isSessionId, isUserId } from "../ids";
import { type LimitsEnv, routeLimiterFor } from "../limits";
import { SessionManager } from "../session/session-manager";
import { OperatorLog } from "./console/operator-log";
import { isConsolePath, registerAdminConsole } from "./console/routes/index";
import { adminActor, json } from "./respond";
import { registerSecurityRoutes } from "./security-routes";
import { AdminLabelKey, type AdminTokenEnv, adminLabelOf, adminTokens } from "./tokens";

export function registerAdminRoutes<
  E extends AdminTokenEnv &
    LimitsEnv & { SESSIONS: KVNamespace; USER_SESSIONS?: unknown; ADMIN_CONSOLE_ORGANIZATIONS?: string },
>(app: Application<E>): void {
  const tokens = adminTokens(app.env);
  const limiter = routeLimiterFor(app, "admin");
  // "/admin/*" matches "/admin" too (the console's home): one count per request.
  if (limiter) app.hono.use("/admin/*", limiter);
  // The console (pages for people) beside the JSON API; it decides its own access.
  if (app.env.USER_SESSIONS) registerAdminConsole(app);
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
    setRequestValue(c.req.raw, AdminLabelKey, label);
    await next();
  });

  app.hono.get("/admin/users/:userId/sessions", async (c) => {
    const userId = c.req.param("userId");
    if (!isUserId(userId)) return json(400, { error: "invalid_user_id", message: "The user id is not valid" });
    return json(200, { userId, sessions: await sessions().listSessions(userId) });
  });

  app.hono.delete("/admin/sessions/:sessionId", async (c) => {
    const sessionId = c.req.param("sessionId");
    if (!isSessionId(sessionId)) {
      return json(400, { error: "invalid_session_id", message: "A session id is 64 lowercase hex digits" });
    }
    const actor = adminActor(c.req.raw);
    const result = await sessions().revokeSession(sessionId, actor);
    if (!result) return json(404, { error: "session_not_found", message: "No live session has that id" });
    await log().record({
      action: "session.revoked",
      operator: `api:${actor.label}`,
      target: null,
      receiptId: result.receiptId ?? null,
    });
    return json(200, { sessionId, ...result });
  });

  app.hono.post("/admin/users/:userId/sessions/revoke", async (c) => {
    const userId = c.req.param("userId");
    if (!isUserId(userId)) return json(400, { error: "invalid_user_id", message: "The user id is not valid" });
    const actor = adminActor(c.req.raw);
    const result = await sessions().revokeUser(userId, actor);
    await log().record({
      action: "user.revoked",
      operator: `api:${actor.label}`,
      target: userId,
      receiptId: result.receiptId ?? null,
    });
    return json(200, { userId, ...result });
  });

  registerSecurityRoutes(app, sessions, log);
}
