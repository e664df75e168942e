/**
 * @module
 * The admin console at `/admin` (pages and forms; the JSON admin API beside it keeps its bearer
 * token): find a person by email or id, see their sessions (device, place), timeline, receipts and
 * security-event deliveries, sign out one session or all with the receipt shown, end an
 * organization's sessions, and read the console's own activity. Every page is `private, no-store`
 * with the account pages' CSP; every state change is a POST behind `CsrfMiddleware`, whose tokens are
 * bound to the break-glass session while one is open. Exists when an
 * admin token or `ADMIN_CONSOLE_ORGANIZATIONS` is configured and the session objects are bound.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Application } from "../../../../client-sdk/core/application";
import { getRequestValue, toHono } from "../../../../client-sdk/core/middleware";
import { withContentSecurityPolicy } from "../../account/csp";
import { consoleOrganizations } from "../../config/rules";
import { isOrganizationId, isReceiptId, isSessionId, isUserId } from "../../ids";
import { currentSession } from "../../middleware/context";
import { CsrfMiddleware, csrfToken } from "../../middleware/csrf";
import { authErrorPage, errorPage, page } from "../../pages";
import { siteHeader } from "../../pages/site-header";
import { AuthConfigToken, publicOrigin } from "../../provider";
import { SessionManager } from "../../session/session-manager";
import { type AdminTokenEnv, adminTokens, matchAdminToken } from "../tokens";
import { consoleOperator, OperatorKey } from "./access";
import { BreakGlassSessions } from "./break-glass";
import { OperatorLog } from "./operator-log";
import { CONSOLE_SCRIPT, CONSOLE_SCRIPT_TYPE } from "./script";
import {
  CONSOLE_PATH,
  CONSOLE_SCRIPT_PATH,
  gateBody,
  homeBody,
  type Operator,
  receiptBody,
  receiptPath,
  userBody,
  userPath,
} from "./views";

const EMAIL = /^[^\s@]{1,200}@[^\s@]{1,200}$/;

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
  const hono = app.hono;
  const sessions = () => app.container.resolve(SessionManager);
  let shared: { csrf: MiddlewareHandler; glass: BreakGlassSessions; log: OperatorLog } | undefined;
  const parts = () => {
    if (!shared) {
      const manager = sessions();
      const glass = new BreakGlassSessions(app.env.SESSIONS, {
        clock: manager.config.clock,
        secure: manager.config.secure,
      });
      shared = {
        // Inside a break-glass session the forms' tokens are bound to it: the gate's anonymous token stops working.
        csrf: toHono(
          new CsrfMiddleware(manager, {
            origin: publicOrigin(app.container),
            bindTo: (request) => glass.csrfBinding(request),
          }),
        ),
        glass,
        log: new OperatorLog(app.env.SESSIONS, manager.config.clock),
      };
    }
    return shared;
  };
  const access = (request: Request) =>
    consoleOperator(request, {
      sessions: sessions(),
      breakGlass: parts().glass,
      organizations,
      recentAuthMaxAge: app.container.resolve(AuthConfigToken).recentAuthMaxAge,
    });
  const operatorOf = (c: Context) => getRequestValue(c.req.raw, OperatorKey)!;
  const html = async (c: Context, title: string, body: string, status = 200) => {
    // The header names the signed-in operator (a break-glass session has nobody signed in).
    const me = currentSession(c.req.raw);
    const header = siteHeader({
      current: CONSOLE_PATH,
      ...(me ? { user: me.user, csrf: csrfToken(c.req.raw) } : {}),
    });
    const res = await withContentSecurityPolicy(
      page(title, body, status, undefined, header),
      publicOrigin(app.container),
    );
    res.headers.set("Cache-Control", "private, no-store");
    return res;
  };

  hono.get(CONSOLE_SCRIPT_PATH, () => {
    return new Response(CONSOLE_SCRIPT, {
      headers: {
        "Content-Type": CONSOLE_SCRIPT_TYPE,
        "Cache-Control": "no-cache",
        "X-Content-Type-Options": "nosniff",
      },
    });
  });
  for (const path of [CONSOLE_PATH, `${CONSOLE_PATH}/console/*`]) hono.use(path, (c, next) => parts().csrf(c, next));

  // The gate and the home: who is here decides which.
  hono.get(CONSOLE_PATH, async (c) => {
    const request = c.req.raw;
    const operator = await access(request);
    if (operator instanceof Response) return operator;
    if (operator === null) {
      return html(
        c,
        "Admin console",
        gateBody({ csrf: csrfToken(request), breakGlass: tokens.length > 0, signedIn: false }),
      );
    }
    const notice = new URL(request.url).searchParams.get("notice");
    return html(
      c,
      "Admin console",
      homeBody({
        operator,
        csrf: csrfToken(request),
        log: await parts().log.recent(20),
        organizations: sessions().hasOrganizations,
        notice: notice === "not-found" ? "Nobody with that email or id has signed in here." : null,
      }),
    );
  });

  hono.post(`${CONSOLE_PATH}/console/break-glass`, async (c) => {
    const request = c.req.raw;
    if (tokens.length === 0) return errorPage(request, 404, "not_found", "There is no such page.");
    const form = await request.formData().catch(() => new FormData());
    const given = form.get("token");
    const label = typeof given === "string" && given.length <= 512 ? await matchAdminToken(given, tokens) : null;
    if (label === null) {
      return errorPage(request, 403, "forbidden", "That admin token is not valid.", { title: "Not opened" });
    }
    const { setCookie } = await parts().glass.open(label);
    await parts().log.record({
      action: "break_glass.opened",
      operator: `break-glass:${label}`,
      target: null,
      receiptId: null,
    });
    return new Response(null, { status: 303, headers: { Location: CONSOLE_PATH, "Set-Cookie": setCookie } });
  });

  // Everything else needs an operator.
  hono.use(`${CONSOLE_PATH}/console/*`, async (c, next) => {
    if (c.req.path === `${CONSOLE_PATH}/console/break-glass`) return next();
    const operator = await access(c.req.raw);
    if (operator instanceof Response) return operator;
    if (operator === null) {
      if (c.req.method === "GET") return new Response(null, { status: 302, headers: { Location: CONSOLE_PATH } });
      return errorPage(c.req.raw, 401, "unauthenticated", "Open the console first.");
    }
    await next();
  });

  hono.post(`${CONSOLE_PATH}/console/sign-out`, async (c) => {
    const operator = operatorOf(c);
    const headers = new Headers({ Location: CONSOLE_PATH });
    if (operator.kind === "break-glass") {
      headers.append("Set-Cookie", await parts().glass.close(c.req.raw));
      await parts().log.record({
        action: "break_glass.closed",
        operator: operator.label,
        target: null,
        receiptId: null,
      });
    }
    return new Response(null, { status: 303, headers });
  });

  hono.get(`${CONSOLE_PATH}/console/search`, async (c) => {
    const q = (c.req.query("q") ?? "").trim();
    let userId: string | null = null;
    if (EMAIL.test(q)) userId = await sessions().directory.find(q);
    else if (isUserId(q)) userId = q;
    const to = userId ? userPath(userId) : `${CONSOLE_PATH}?notice=not-found`;
    return new Response(null, { status: 303, headers: { Location: to } });
  });

  hono.get(`${CONSOLE_PATH}/console/users/:userId`, async (c) => {
    const request = c.req.raw;
    const userId = c.req.param("userId");
    if (!isUserId(userId)) return errorPage(request, 400, "invalid_user_id", "The user id is not valid.");
    try {
      const manager = sessions();
      const [list, timeline, receipts, deliveries] = await Promise.all([
        manager.listSessions(userId),
        manager.timeline(userId, { limit: 25 }),
        manager.receipts(userId, 10),
        manager.deliveries(userId, 20),
      ]);
      const body = userBody({
        operator: operatorOf(c),
        csrf: csrfToken(request),
        userId,
        sessions: [...list].sort((a, b) => b.lastSeenAt - a.lastSeenAt),
        events: timeline.events,
        receipts,
        deliveries,
      });
      return html(c, `Person ${userId}`, body);
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
      const operator = operatorOf(c);
      const result = await sessions().revokeSessionOf(userId, sessionId, "revoked", actorOf(operator));
      if (!result?.receiptId) return errorPage(request, 404, "session_not_found", "That session is not live any more.");
      await parts().log.record({
        action: "session.revoked",
        operator: operator.label,
        target: userId,
        receiptId: result.receiptId,
      });
      return seeOther(receiptPath(result.receiptId));
    } catch (err) {
      return authErrorPage(request, err);
    }
  });

  hono.post(`${CONSOLE_PATH}/console/users/:userId/revoke`, async (c) => {
    const request = c.req.raw;
    const userId = c.req.param("userId");
    if (!isUserId(userId)) return errorPage(request, 400, "invalid_user_id", "The user id is not valid.");
    try {
      const operator = operatorOf(c);
      const result = await sessions().revokeUser(userId, actorOf(operator));
      await parts().log.record({
        action: "user.revoked",
        operator: operator.label,
        target: userId,
        receiptId: result.receiptId ?? null,
      });
      return seeOther(result.receiptId ? receiptPath(result.receiptId) : userPath(userId));
    } catch (err) {
      return authErrorPage(request, err);
    }
  });

  hono.post(`${CONSOLE_PATH}/console/organizations/end`, async (c) => {
    const request = c.req.raw;
    const manager = sessions();
    if (!manager.hasOrganizations) return errorPage(request, 404, "not_found", "There is no such page.");
    const form = await request.formData().catch(() => new FormData());
    const organizationId = String(form.get("organizationId") ?? "").trim();
    if (!isOrganizationId(organizationId)) {
      return errorPage(request, 400, "invalid_organization_id", "The organization id is not valid.");
    }
    try {
      const operator = operatorOf(c);
      const receipt = await manager.endOrganizationSessions(organizationId, {
        kind: "kill_switch",
        label: operator.label,
      });
      await parts().log.record({
        action: "organization.ended",
        operator: operator.label,
        target: organizationId,
        receiptId: receipt.id,
      });
      return seeOther(receiptPath(receipt.id));
    } catch (err) {
      return authErrorPage(request, err);
    }
  });

  hono.get(`${CONSOLE_PATH}/console/receipts/:receiptId`, async (c) => {
    const request = c.req.raw;
    const id = c.req.param("receiptId");
    if (!isReceiptId(id)) return errorPage(request, 400, "invalid_receipt_id", "The receipt id is not valid.");
    try {
      const receipt = await sessions().receipt(id);
      if (!receipt) return errorPage(request, 404, "receipt_not_found", "No receipt has that id.");
      return html(c, "Receipt", receiptBody(operatorOf(c), csrfToken(request), receipt));
    } catch (err) {
      return authErrorPage(request, err);
    }
  });
}

/** The actor on the affected person's timeline: the operator's label, as an admin. */
function actorOf(operator: Operator): { kind: "admin"; label: string } {
  return { kind: "admin", label: operator.label };
}

function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}
