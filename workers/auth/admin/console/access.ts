/**
 * @module
 * Who may use the admin console, decided on every request:
 * 1. an open break-glass session (break-glass.ts) of an admin token; or
 * 2. a signed-in person (not an impersonation) with role `admin` in one of
 *    `ADMIN_CONSOLE_ORGANIZATIONS`, whose sign-in is recent (`RecentAuthMiddleware` with the
 *    worker's `recentAuthMaxAge`: an older one goes through the provider again first).
 * Nothing else counts: not a role in another organization, not a header, not the URL.
 */
import { CurrentSession } from "../../../../client-sdk/auth-context";
import { RecentAuthMiddleware } from "../../../../client-sdk/auth-context/recent-auth";
import { RequestKey, setRequestValue } from "../../../../client-sdk/core/middleware";
import { errorPage } from "../../pages";
import type { SessionManager } from "../../session/session-manager";
import type { BreakGlassSessions } from "./break-glass";
import type { Operator } from "./views";

export const OperatorKey = new RequestKey<Operator>("gatehouse.consoleOperator");

export interface ConsoleAccessOptions {
  sessions: SessionManager;
  breakGlass: BreakGlassSessions;
  /** The operators' organizations (their admins may use the console). */
  organizations: readonly string[];
  recentAuthMaxAge: number;
}

/** The operator of this request; null when nobody is signed in; or the refusal to send. */
export async function consoleOperator(
  request: Request,
  options: ConsoleAccessOptions,
): Promise<Operator | Response | null> {
  const glass = await options.breakGlass.current(request);
  if (glass)
    return remember(request, { kind: "break-glass", label: `break-glass:${glass.label}`, endsAt: glass.expiresAt });
  const session = await options.sessions.resolveSession(request);
  if (!session) return null;
  if (session.impersonator) {
    return errorPage(
      request,
      403,
      "impersonation_forbidden",
      "The console is not open to a session signed in as someone else.",
    );
  }
  const admin = session.user.memberships.some(
    (m) => m.role === "admin" && options.organizations.includes(m.organizationId),
  );
  if (!admin) {
    return errorPage(request, 403, "forbidden", "The console is for admins of the operators' organization.");
  }
  // A recent sign-in, or back through the provider first (the middleware answers, or lets us pass).
  setRequestValue(request, CurrentSession, session);
  const passed = new Response(null);
  const answer = await new RecentAuthMiddleware(options.recentAuthMaxAge, {
    clock: options.sessions.config.clock,
  }).handle(request, async () => passed);
  if (answer !== passed) return answer;
  return remember(request, { kind: "admin", label: session.user.email.slice(0, 128), userId: session.user.id });
}

function remember(request: Request, operator: Operator): Operator {
  setRequestValue(request, OperatorKey, operator);
  return operator;
}
