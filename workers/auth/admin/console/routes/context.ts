/**
 * @module
 * What the admin console's route modules share: the session manager, the parts made on first use
 * (the CSRF middleware bound to break-glass sessions, the break-glass store, the operator log), the
 * operator of a request, and the page every answer is wrapped in. It registers no route and
 * decides no access itself (`access.ts` does).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Application } from "../../../../../client-sdk/core/application";
import { getRequestValue, toHono } from "../../../../../client-sdk/core/middleware";
import { withContentSecurityPolicy } from "../../../account/csp";
import { currentSession } from "../../../middleware/context";
import { CsrfMiddleware, csrfToken } from "../../../middleware/csrf";
import { page } from "../../../pages";
import { siteHeader } from "../../../pages/site-header";
import { AuthConfigToken, publicOrigin } from "../../../provider";
import { SessionManager } from "../../../session/session-manager";
import { type OperatorAction, OperatorLog } from "../../operator-log";
import { consoleOperator, OperatorKey } from "../access";
import { BreakGlassSessions } from "../break-glass";
import { CONSOLE_PATH, type Operator, receiptPath } from "../views";

export interface ConsoleContext {
  /** The admin tokens (break glass opens with one); empty when only organizations' admins may enter. */
  readonly tokens: readonly { label: string; token: string }[];
  sessions(): SessionManager;
  /** The CSRF middleware of every console path (its tokens bound to an open break-glass session). */
  csrf(): MiddlewareHandler;
  breakGlass(): BreakGlassSessions;
  log(): OperatorLog;
  /** The operator of this request; null when nobody is signed in; or the refusal to send. */
  access(request: Request): Promise<Operator | Response | null>;
  /** The operator the console guard found (only behind it). */
  operatorOf(c: Context): Operator;
  /** A console page: the site header, the account pages' CSP, `private, no-store`. */
  html(c: Context, title: string, body: string, status?: number): Promise<Response>;
}

export function consoleContext<E extends { SESSIONS: KVNamespace }>(
  app: Application<E>,
  tokens: readonly { label: string; token: string }[],
  organizations: readonly string[],
): ConsoleContext {
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
  return {
    tokens,
    sessions,
    csrf: () => parts().csrf,
    breakGlass: () => parts().glass,
    log: () => parts().log,
    access: (request) =>
      consoleOperator(request, {
        sessions: sessions(),
        breakGlass: parts().glass,
        organizations,
        recentAuthMaxAge: app.container.resolve(AuthConfigToken).recentAuthMaxAge,
      }),
    operatorOf: (c) => getRequestValue(c.req.raw, OperatorKey)!,
    html: async (c, title, body, status = 200) => {
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
    },
  };
}

/** The actor on the affected person's timeline: the operator's label, as an admin. */
export function actorOf(operator: Operator): { kind: "admin"; label: string } {
  return { kind: "admin", label: operator.label };
}

export function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}

/**
 * What an operator did, written to the operator log, answered by its receipt's page (or by
 * `otherwise` when it made no receipt).
 */
export async function loggedReceipt(
  shared: ConsoleContext,
  operator: Operator,
  action: OperatorAction,
  target: string | null,
  receiptId: string | null | undefined,
  otherwise: string = CONSOLE_PATH,
): Promise<Response> {
  await shared.log().record({ action, operator: operator.label, target, receiptId: receiptId ?? null });
  return seeOther(receiptId ? receiptPath(receiptId) : otherwise);
}
