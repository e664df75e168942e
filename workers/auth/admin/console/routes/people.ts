/**
 * @module
 * The admin console's people: find one by email or user id, see their sessions, timeline, receipts
 * and deliveries, sign out one session or all of them (each answered by its receipt and written to
 * the operator log). Behind the console guard (gate.ts); every id is checked before it names an object.
 */
import type { Application } from "../../../../../client-sdk/core/application";
import { isSessionId, isUserId } from "../../../ids";
import { csrfToken } from "../../../middleware/csrf";
import { authErrorPage, errorPage } from "../../../pages";
import { CONSOLE_PATH, userBody, userPath } from "../views";
import { actorOf, type ConsoleContext, loggedReceipt } from "./context";

const EMAIL = /^[^\s@]{1,200}@[^\s@]{1,200}$/;

export function registerPeople<E extends object>(app: Application<E>, shared: ConsoleContext): void {
  const hono = app.hono;

  hono.get(`${CONSOLE_PATH}/console/search`, async (c) => {
    const q = (c.req.query("q") ?? "").trim();
    let userId: string | null = null;
    if (EMAIL.test(q)) userId = await shared.sessions().directory.find(q);
    else if (isUserId(q)) userId = q;
    const to = userId ? userPath(userId) : `${CONSOLE_PATH}?notice=not-found`;
    return new Response(null, { status: 303, headers: { Location: to } });
  });

  hono.get(`${CONSOLE_PATH}/console/users/:userId`, async (c) => {
    const request = c.req.raw;
    const userId = c.req.param("userId");
    if (!isUserId(userId)) return errorPage(request, 400, "invalid_user_id", "The user id is not valid.");
    try {
      const manager = shared.sessions();
      const [list, timeline, receipts, deliveries] = await Promise.all([
        manager.listSessions(userId),
        manager.timeline(userId, { limit: 25 }),
        manager.receipts(userId, 10),
        manager.deliveries(userId, 20),
      ]);
      const body = userBody({
        operator: shared.operatorOf(c),
        csrf: csrfToken(request),
        userId,
        sessions: [...list].sort((a, b) => b.lastSeenAt - a.lastSeenAt),
        events: timeline.events,
        receipts,
        deliveries,
      });
      return shared.html(c, `Person ${userId}`, body);
    } catch (err) {
      return authErrorPage(request, err);
    }
  });

  hono.post(`${CONSOLE_PATH}/console/users/:userId/sessions/:sessionId/revoke`, async (c) => {
    const request = c.req.raw;
    const { userId, sessionId } = c.req.param();
    if (!isUserId(userId) || !isSessionId(sessionId)) {
      return errorPage(request, 400, "invalid_session_id", "The user or session id is not valid.");
    }
    try {
      const operator = shared.operatorOf(c);
      const result = await shared.sessions().revokeSessionOf(userId, sessionId, "revoked", actorOf(operator));
      if (!result?.receiptId) return errorPage(request, 404, "session_not_found", "That session is not live any more.");
      return await loggedReceipt(shared, operator, "session.revoked", userId, result.receiptId);
    } catch (err) {
      return authErrorPage(request, err);
    }
  });

  hono.post(`${CONSOLE_PATH}/console/users/:userId/revoke`, async (c) => {
    const request = c.req.raw;
    const userId = c.req.param("userId");
    if (!isUserId(userId)) return errorPage(request, 400, "invalid_user_id", "The user id is not valid.");
    try {
      const operator = shared.operatorOf(c);
      const result = await shared.sessions().revokeUser(userId, actorOf(operator));
      return await loggedReceipt(shared, operator, "user.revoked", userId, result.receiptId, userPath(userId));
    } catch (err) {
      return authErrorPage(request, err);
    }
  });
}
