/**
 * @module
 * The admin revocation endpoint: list a user's sessions, revoke one session,
 * revoke all of a user's sessions. `Authorization: Bearer <ADMIN_API_TOKEN>`,
 * compared in constant time; missing → 401, wrong → 403. Without the secret
 * configured the routes are not registered at all (404). JSON in and out.
 */
import type { Application } from "../../../client-sdk/core/application";
import { sha256Hex, timingSafeEqual } from "../crypto";
import { isSessionId, isUserId } from "../ids";
import { type LimitsEnv, routeLimiterFor } from "../limits";
import { SessionManager } from "../session/session-manager";

function json(status: number, body: unknown): Response {
  return Response.json(body, { status, headers: { "Cache-Control": "no-store" } });
}

async function authorize(request: Request, token: string): Promise<Response | null> {
  const header = request.headers.get("Authorization");
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!match) {
    return Response.json(
      { error: "unauthenticated", message: "Send Authorization: Bearer <ADMIN_API_TOKEN>" },
      { status: 401, headers: { "WWW-Authenticate": 'Bearer realm="gatehouse-admin"', "Cache-Control": "no-store" } },
    );
  }
  // Compare digests so the comparison's time does not depend on where the strings differ or on their lengths.
  const ok = timingSafeEqual(await sha256Hex(match[1]!), await sha256Hex(token));
  return ok ? null : json(403, { error: "forbidden", message: "The admin token is not valid" });
}

export function registerAdminRoutes<E extends { ADMIN_API_TOKEN?: string } & LimitsEnv>(app: Application<E>): void {
  const token = app.env.ADMIN_API_TOKEN;
  if (!token) return;
  const sessions = () => app.container.resolve(SessionManager);

  const limiter = routeLimiterFor(app, "admin");
  if (limiter) app.hono.use("/admin/*", limiter);
  app.hono.use("/admin/*", async (c, next) => {
    const denied = await authorize(c.req.raw, token);
    if (denied) return denied;
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
    const result = await sessions().revokeSession(sessionId);
    if (!result) return json(404, { error: "session_not_found", message: "No live session has that id" });
    return json(200, { sessionId, ...result });
  });

  app.hono.post("/admin/users/:userId/sessions/revoke", async (c) => {
    const userId = c.req.param("userId");
    if (!isUserId(userId)) return json(400, { error: "invalid_user_id", message: "The user id is not valid" });
    return json(200, { userId, ...(await sessions().revokeUser(userId)) });
  });
}
