/**
 * @module
 * The admin API's sessions: list a user's sessions, revoke one session, revoke all of a user's
 * sessions. Behind the admin token (index.ts), whose label is the actor on the user's timeline and
 * on the operator log. Every id is checked before it names an object.
 */
import type { Application } from "../../../../client-sdk/core/application";
import { isSessionId, isUserId } from "../../ids";
import type { SessionManager } from "../../session/session-manager";
import type { OperatorLog } from "../operator-log";
import { adminActor, invalidUserId, json, logApiAction } from "./respond";

export function registerSessionRoutes<E extends object>(
  app: Application<E>,
  sessions: () => SessionManager,
  log: () => OperatorLog,
): void {
  const hono = app.hono;

  hono.get("/admin/users/:userId/sessions", async (c) => {
    const userId = c.req.param("userId");
    if (!isUserId(userId)) return invalidUserId();
    return json(200, { userId, sessions: await sessions().listSessions(userId) });
  });

  hono.delete("/admin/sessions/:sessionId", async (c) => {
    const sessionId = c.req.param("sessionId");
    if (!isSessionId(sessionId)) {
      return json(400, { error: "invalid_session_id", message: "A session id is 64 lowercase hex digits" });
    }
    const actor = adminActor(c.req.raw);
    const result = await sessions().revokeSession(sessionId, actor);
    if (!result) return json(404, { error: "session_not_found", message: "No live session has that id" });
    await logApiAction(log(), actor, "session.revoked", null, result.receiptId);
    return json(200, { sessionId, ...result });
  });

  hono.post("/admin/users/:userId/sessions/revoke", async (c) => {
    const userId = c.req.param("userId");
    if (!isUserId(userId)) return invalidUserId();
    const actor = adminActor(c.req.raw);
    const result = await sessions().revokeUser(userId, actor);
    await logApiAction(log(), actor, "user.revoked", userId, result.receiptId);
    return json(200, { userId, ...result });
  });
}
