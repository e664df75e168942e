/**
 * @module
 * `GET /api/me`: the signed-in user and session id as JSON, behind
 * `AuthMiddleware` (401 JSON without a session). A small authenticated
 * endpoint for scripts, the load test and consumers that call over HTTP.
 */
import type { Application } from "../../../client-sdk/core/application";
import { toHono } from "../../../client-sdk/core/middleware";
import { AuthMiddleware } from "../middleware/auth";
import { currentSession } from "../middleware/context";
import { SessionManager } from "../session/session-manager";

export function registerApiRoutes<E extends object>(app: Application<E>): void {
  const sessions = {
    resolveSession: (request: Request) => app.container.resolve(SessionManager).resolveSession(request),
  };
  app.hono.use("/api/*", toHono(new AuthMiddleware(sessions)));
  app.hono.get("/api/me", (c) => {
    const session = currentSession(c.req.raw)!;
    return c.json({ sessionId: session.sessionId, user: session.user });
  });
}
